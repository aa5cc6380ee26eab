-- Drop index "item_expires_at" from table: "items"
DROP INDEX "item_expires_at";
-- Create index "item_expires_at_desc_id" to table: "items"
CREATE INDEX "item_expires_at_desc_id" ON "items" ("expires_at" DESC, "id");
-- Create index "item_expires_at_id" to table: "items"
CREATE INDEX "item_expires_at_id" ON "items" ("expires_at", "id");
-- Drop index "order_due_at" from table: "orders"
DROP INDEX "order_due_at";
-- Create index "order_due_at_desc_id" to table: "orders"
CREATE INDEX "order_due_at_desc_id" ON "orders" ("due_at" DESC, "id");
-- Create index "order_due_at_id" to table: "orders"
CREATE INDEX "order_due_at_id" ON "orders" ("due_at", "id");
-- Drop index "trackingentry_occurred_at" from table: "tracking_entries"
DROP INDEX "trackingentry_occurred_at";
-- Create index "trackingentry_occurred_at_desc_id" to table: "tracking_entries"
CREATE INDEX "trackingentry_occurred_at_desc_id" ON "tracking_entries" ("occurred_at" DESC, "id");
-- Create index "trackingentry_occurred_at_id" to table: "tracking_entries"
CREATE INDEX "trackingentry_occurred_at_id" ON "tracking_entries" ("occurred_at", "id");
