-- Create index "events_actor_trgm" to table: "events"
CREATE INDEX "events_actor_trgm" ON "events" USING gin ("actor" gin_trgm_ops);
-- Create index "events_subject_id_trgm" to table: "events"
CREATE INDEX "events_subject_id_trgm" ON "events" USING gin ("subject_id" gin_trgm_ops);
-- Create index "events_type_trgm" to table: "events"
CREATE INDEX "events_type_trgm" ON "events" USING gin ("type" gin_trgm_ops);
-- Create index "hubs_address_line1_trgm" to table: "hubs"
CREATE INDEX "hubs_address_line1_trgm" ON "hubs" USING gin ("address_line1" gin_trgm_ops);
-- Create index "hubs_city_trgm" to table: "hubs"
CREATE INDEX "hubs_city_trgm" ON "hubs" USING gin ("city" gin_trgm_ops);
-- Create index "hubs_code_trgm" to table: "hubs"
CREATE INDEX "hubs_code_trgm" ON "hubs" USING gin ("code" gin_trgm_ops);
-- Create index "hubs_country_trgm" to table: "hubs"
CREATE INDEX "hubs_country_trgm" ON "hubs" USING gin ("country" gin_trgm_ops);
-- Create index "hubs_name_trgm" to table: "hubs"
CREATE INDEX "hubs_name_trgm" ON "hubs" USING gin ("name" gin_trgm_ops);
-- Create index "hubs_postal_code_trgm" to table: "hubs"
CREATE INDEX "hubs_postal_code_trgm" ON "hubs" USING gin ("postal_code" gin_trgm_ops);
-- Create index "hubs_timezone_trgm" to table: "hubs"
CREATE INDEX "hubs_timezone_trgm" ON "hubs" USING gin ("timezone" gin_trgm_ops);
-- Create index "items_lot_trgm" to table: "items"
CREATE INDEX "items_lot_trgm" ON "items" USING gin ("lot" gin_trgm_ops);
-- Create index "items_serial_trgm" to table: "items"
CREATE INDEX "items_serial_trgm" ON "items" USING gin ("serial" gin_trgm_ops);
-- Create index "orders_customer_ref_trgm" to table: "orders"
CREATE INDEX "orders_customer_ref_trgm" ON "orders" USING gin ("customer_ref" gin_trgm_ops);
-- Create index "orders_number_trgm" to table: "orders"
CREATE INDEX "orders_number_trgm" ON "orders" USING gin ("number" gin_trgm_ops);
-- Create index "orders_ship_to_city_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_city_trgm" ON "orders" USING gin ("ship_to_city" gin_trgm_ops);
-- Create index "orders_ship_to_country_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_country_trgm" ON "orders" USING gin ("ship_to_country" gin_trgm_ops);
-- Create index "orders_ship_to_name_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_name_trgm" ON "orders" USING gin ("ship_to_name" gin_trgm_ops);
-- Create index "orders_ship_to_postal_code_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_postal_code_trgm" ON "orders" USING gin ("ship_to_postal_code" gin_trgm_ops);
-- Create index "orders_status_trgm" to table: "orders"
CREATE INDEX "orders_status_trgm" ON "orders" USING gin ("status" gin_trgm_ops);
-- Create index "parts_description_trgm" to table: "parts"
CREATE INDEX "parts_description_trgm" ON "parts" USING gin ("description" gin_trgm_ops);
-- Create index "parts_part_name_trgm" to table: "parts"
CREATE INDEX "parts_part_name_trgm" ON "parts" USING gin ("part_name" gin_trgm_ops);
-- Create index "parts_sku_trgm" to table: "parts"
CREATE INDEX "parts_sku_trgm" ON "parts" USING gin ("sku" gin_trgm_ops);
-- Create index "tracking_entries_carrier_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_carrier_trgm" ON "tracking_entries" USING gin ("carrier" gin_trgm_ops);
-- Create index "tracking_entries_description_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_description_trgm" ON "tracking_entries" USING gin ("description" gin_trgm_ops);
-- Create index "tracking_entries_location_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_location_trgm" ON "tracking_entries" USING gin ("location" gin_trgm_ops);
-- Create index "tracking_entries_tracking_number_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_tracking_number_trgm" ON "tracking_entries" USING gin ("tracking_number" gin_trgm_ops);
