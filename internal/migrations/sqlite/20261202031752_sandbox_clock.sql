-- Add column "occurred_at" to table: "events"
ALTER TABLE `events` ADD COLUMN `occurred_at` datetime NULL;
-- Create "sandbox_clocks" table
CREATE TABLE `sandbox_clocks` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL DEFAULT ('sandbox'), `offset_us` integer NOT NULL DEFAULT (0), `frozen_at` datetime NULL, PRIMARY KEY (`id`));
-- Create index "sandboxclock_created_at" to table: "sandbox_clocks"
CREATE INDEX `sandboxclock_created_at` ON `sandbox_clocks` (`created_at`);
-- Create index "sandboxclock_updated_at" to table: "sandbox_clocks"
CREATE INDEX `sandboxclock_updated_at` ON `sandbox_clocks` (`updated_at`);
-- Create index "sandboxclock_name" to table: "sandbox_clocks"
CREATE UNIQUE INDEX `sandboxclock_name` ON `sandbox_clocks` (`name`);
-- Create "simulated_scans" table
CREATE TABLE `simulated_scans` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `order_id` text NOT NULL, `tracking_number` text NOT NULL, `carrier` text NOT NULL, `status` text NOT NULL, `hub_id` text NULL, `location` text NOT NULL DEFAULT (''), `description` text NOT NULL DEFAULT (''), `due_at` datetime NOT NULL, `step` integer NOT NULL DEFAULT (0), PRIMARY KEY (`id`));
-- Create index "simulatedscan_created_at" to table: "simulated_scans"
CREATE INDEX `simulatedscan_created_at` ON `simulated_scans` (`created_at`);
-- Create index "simulatedscan_updated_at" to table: "simulated_scans"
CREATE INDEX `simulatedscan_updated_at` ON `simulated_scans` (`updated_at`);
-- Create index "simulatedscan_due_at_step" to table: "simulated_scans"
CREATE INDEX `simulatedscan_due_at_step` ON `simulated_scans` (`due_at`, `step`);
-- Create index "simulatedscan_order_id" to table: "simulated_scans"
CREATE INDEX `simulatedscan_order_id` ON `simulated_scans` (`order_id`);
