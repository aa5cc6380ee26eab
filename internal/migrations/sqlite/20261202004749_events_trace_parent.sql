-- Add column "trace_parent" to table: "events"
ALTER TABLE `events` ADD COLUMN `trace_parent` text NULL;
