-- Create index "hubs_code_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_code_lower_trgm" ON "hubs" USING GIN ((lower((code)::text)) gin_trgm_ops);
-- Create index "hubs_name_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_name_lower_trgm" ON "hubs" USING GIN ((lower((name)::text)) gin_trgm_ops);
-- Create index "hubs_address_line1_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_address_line1_lower_trgm" ON "hubs" USING GIN ((lower((address_line1)::text)) gin_trgm_ops);
-- Create index "hubs_city_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_city_lower_trgm" ON "hubs" USING GIN ((lower((city)::text)) gin_trgm_ops);
-- Create index "hubs_postal_code_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_postal_code_lower_trgm" ON "hubs" USING GIN ((lower((postal_code)::text)) gin_trgm_ops);
-- Create index "hubs_country_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_country_lower_trgm" ON "hubs" USING GIN ((lower((country)::text)) gin_trgm_ops);
-- Create index "hubs_timezone_lower_trgm" to table: "hubs"
CREATE INDEX "hubs_timezone_lower_trgm" ON "hubs" USING GIN ((lower((timezone)::text)) gin_trgm_ops);
-- Create index "items_lot_lower_trgm" to table: "items"
CREATE INDEX "items_lot_lower_trgm" ON "items" USING GIN ((lower((lot)::text)) gin_trgm_ops);
-- Create index "items_serial_lower_trgm" to table: "items"
CREATE INDEX "items_serial_lower_trgm" ON "items" USING GIN ((lower((serial)::text)) gin_trgm_ops);
-- Create index "orders_number_lower_trgm" to table: "orders"
CREATE INDEX "orders_number_lower_trgm" ON "orders" USING GIN ((lower((number)::text)) gin_trgm_ops);
-- Create index "orders_status_lower_trgm" to table: "orders"
CREATE INDEX "orders_status_lower_trgm" ON "orders" USING GIN ((lower((status)::text)) gin_trgm_ops);
-- Create index "orders_customer_ref_lower_trgm" to table: "orders"
CREATE INDEX "orders_customer_ref_lower_trgm" ON "orders" USING GIN ((lower((customer_ref)::text)) gin_trgm_ops);
-- Create index "orders_ship_to_name_lower_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_name_lower_trgm" ON "orders" USING GIN ((lower((ship_to_name)::text)) gin_trgm_ops);
-- Create index "orders_ship_to_city_lower_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_city_lower_trgm" ON "orders" USING GIN ((lower((ship_to_city)::text)) gin_trgm_ops);
-- Create index "orders_ship_to_postal_code_lower_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_postal_code_lower_trgm" ON "orders" USING GIN ((lower((ship_to_postal_code)::text)) gin_trgm_ops);
-- Create index "orders_ship_to_country_lower_trgm" to table: "orders"
CREATE INDEX "orders_ship_to_country_lower_trgm" ON "orders" USING GIN ((lower((ship_to_country)::text)) gin_trgm_ops);
-- Create index "parts_sku_lower_trgm" to table: "parts"
CREATE INDEX "parts_sku_lower_trgm" ON "parts" USING GIN ((lower((sku)::text)) gin_trgm_ops);
-- Create index "parts_part_name_lower_trgm" to table: "parts"
CREATE INDEX "parts_part_name_lower_trgm" ON "parts" USING GIN ((lower((part_name)::text)) gin_trgm_ops);
-- Create index "parts_description_lower_trgm" to table: "parts"
CREATE INDEX "parts_description_lower_trgm" ON "parts" USING GIN ((lower((description)::text)) gin_trgm_ops);
-- Create index "tracking_entries_tracking_number_lower_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_tracking_number_lower_trgm" ON "tracking_entries" USING GIN ((lower((tracking_number)::text)) gin_trgm_ops);
-- Create index "tracking_entries_carrier_lower_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_carrier_lower_trgm" ON "tracking_entries" USING GIN ((lower((carrier)::text)) gin_trgm_ops);
-- Create index "tracking_entries_location_lower_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_location_lower_trgm" ON "tracking_entries" USING GIN ((lower((location)::text)) gin_trgm_ops);
-- Create index "tracking_entries_description_lower_trgm" to table: "tracking_entries"
CREATE INDEX "tracking_entries_description_lower_trgm" ON "tracking_entries" USING GIN ((lower((description)::text)) gin_trgm_ops);
