-- Add column "filters" to table: "webhook_endpoints"
ALTER TABLE `webhook_endpoints` ADD COLUMN `filters` json NULL;
