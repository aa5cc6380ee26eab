-- Modify "webhook_endpoints" table
ALTER TABLE "webhook_endpoints" ADD COLUMN "filters" jsonb NULL;
