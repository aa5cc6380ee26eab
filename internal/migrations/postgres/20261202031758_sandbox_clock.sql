-- Modify "events" table
ALTER TABLE "events" ADD COLUMN "occurred_at" timestamptz NULL;
-- Create "sandbox_clocks" table
CREATE TABLE "sandbox_clocks" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "name" character varying NOT NULL DEFAULT 'sandbox', "offset_us" bigint NOT NULL DEFAULT 0, "frozen_at" timestamptz NULL, PRIMARY KEY ("id"));
-- Create index "sandboxclock_created_at" to table: "sandbox_clocks"
CREATE INDEX "sandboxclock_created_at" ON "sandbox_clocks" ("created_at");
-- Create index "sandboxclock_name" to table: "sandbox_clocks"
CREATE UNIQUE INDEX "sandboxclock_name" ON "sandbox_clocks" ("name");
-- Create index "sandboxclock_updated_at" to table: "sandbox_clocks"
CREATE INDEX "sandboxclock_updated_at" ON "sandbox_clocks" ("updated_at");
-- Create "simulated_scans" table
CREATE TABLE "simulated_scans" ("id" character varying NOT NULL, "created_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL, "order_id" character varying NOT NULL, "tracking_number" character varying NOT NULL, "carrier" character varying NOT NULL, "status" character varying NOT NULL, "hub_id" character varying NULL, "location" character varying NOT NULL DEFAULT '', "description" character varying NOT NULL DEFAULT '', "due_at" timestamptz NOT NULL, "step" bigint NOT NULL DEFAULT 0, PRIMARY KEY ("id"));
-- Create index "simulatedscan_created_at" to table: "simulated_scans"
CREATE INDEX "simulatedscan_created_at" ON "simulated_scans" ("created_at");
-- Create index "simulatedscan_due_at_step" to table: "simulated_scans"
CREATE INDEX "simulatedscan_due_at_step" ON "simulated_scans" ("due_at", "step");
-- Create index "simulatedscan_order_id" to table: "simulated_scans"
CREATE INDEX "simulatedscan_order_id" ON "simulated_scans" ("order_id");
-- Create index "simulatedscan_updated_at" to table: "simulated_scans"
CREATE INDEX "simulatedscan_updated_at" ON "simulated_scans" ("updated_at");
