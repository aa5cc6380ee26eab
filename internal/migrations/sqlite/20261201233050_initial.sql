-- Create "api_tokens" table
CREATE TABLE `api_tokens` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `name` text NOT NULL, `display_prefix` text NOT NULL, `secret_hash` text NOT NULL, `environment` text NOT NULL, `scopes` json NOT NULL, `expires_at` datetime NULL, `last_used_at` datetime NULL, `revoked_at` datetime NULL, `user_id` text NULL, PRIMARY KEY (`id`), CONSTRAINT `api_tokens_users_tokens` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE SET NULL);
-- Create index "api_tokens_secret_hash_key" to table: "api_tokens"
CREATE UNIQUE INDEX `api_tokens_secret_hash_key` ON `api_tokens` (`secret_hash`);
-- Create index "apitoken_created_at" to table: "api_tokens"
CREATE INDEX `apitoken_created_at` ON `api_tokens` (`created_at`);
-- Create index "apitoken_updated_at" to table: "api_tokens"
CREATE INDEX `apitoken_updated_at` ON `api_tokens` (`updated_at`);
-- Create index "apitoken_user_id" to table: "api_tokens"
CREATE INDEX `apitoken_user_id` ON `api_tokens` (`user_id`);
-- Create "events" table
CREATE TABLE `events` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `type` text NOT NULL, `subject_id` text NOT NULL, `actor` text NOT NULL DEFAULT (''), `data` json NULL, `sequence` integer NULL, `pending_order` integer NULL, PRIMARY KEY (`id`));
-- Create index "event_created_at" to table: "events"
CREATE INDEX `event_created_at` ON `events` (`created_at`);
-- Create index "event_updated_at" to table: "events"
CREATE INDEX `event_updated_at` ON `events` (`updated_at`);
-- Create index "event_type" to table: "events"
CREATE INDEX `event_type` ON `events` (`type`);
-- Create index "event_subject_id" to table: "events"
CREATE INDEX `event_subject_id` ON `events` (`subject_id`);
-- Create index "event_actor" to table: "events"
CREATE INDEX `event_actor` ON `events` (`actor`);
-- Create index "event_sequence" to table: "events"
CREATE UNIQUE INDEX `event_sequence` ON `events` (`sequence`);
-- Create index "event_pending_order" to table: "events"
CREATE INDEX `event_pending_order` ON `events` (`pending_order`) WHERE sequence IS NULL;
-- Create "hubs" table
CREATE TABLE `hubs` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `revision` integer NOT NULL DEFAULT (1), `code` text NOT NULL, `name` text NOT NULL, `kind` text NOT NULL DEFAULT ('warehouse'), `address_line1` text NOT NULL DEFAULT (''), `city` text NOT NULL DEFAULT (''), `postal_code` text NOT NULL DEFAULT (''), `country` text NOT NULL, `latitude` real NULL, `longitude` real NULL, `timezone` text NOT NULL DEFAULT ('UTC'), `active` bool NOT NULL DEFAULT (true), PRIMARY KEY (`id`));
-- Create index "hubs_code_key" to table: "hubs"
CREATE UNIQUE INDEX `hubs_code_key` ON `hubs` (`code`);
-- Create index "hub_created_at" to table: "hubs"
CREATE INDEX `hub_created_at` ON `hubs` (`created_at`);
-- Create index "hub_updated_at" to table: "hubs"
CREATE INDEX `hub_updated_at` ON `hubs` (`updated_at`);
-- Create index "hub_name" to table: "hubs"
CREATE INDEX `hub_name` ON `hubs` (`name`);
-- Create index "hub_kind" to table: "hubs"
CREATE INDEX `hub_kind` ON `hubs` (`kind`);
-- Create index "hub_address_line1" to table: "hubs"
CREATE INDEX `hub_address_line1` ON `hubs` (`address_line1`);
-- Create index "hub_city" to table: "hubs"
CREATE INDEX `hub_city` ON `hubs` (`city`);
-- Create index "hub_postal_code" to table: "hubs"
CREATE INDEX `hub_postal_code` ON `hubs` (`postal_code`);
-- Create index "hub_country" to table: "hubs"
CREATE INDEX `hub_country` ON `hubs` (`country`);
-- Create index "hub_latitude" to table: "hubs"
CREATE INDEX `hub_latitude` ON `hubs` (`latitude`);
-- Create index "hub_longitude" to table: "hubs"
CREATE INDEX `hub_longitude` ON `hubs` (`longitude`);
-- Create index "hub_timezone" to table: "hubs"
CREATE INDEX `hub_timezone` ON `hubs` (`timezone`);
-- Create index "hub_active" to table: "hubs"
CREATE INDEX `hub_active` ON `hubs` (`active`);
-- Create "idempotency_keys" table
CREATE TABLE `idempotency_keys` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `principal` text NOT NULL, `key` text NOT NULL, `method` text NOT NULL, `path` text NOT NULL, `request_hash` text NOT NULL, `status` integer NOT NULL DEFAULT (0), `content_type` text NOT NULL DEFAULT (''), `body` blob NULL, PRIMARY KEY (`id`));
-- Create index "idempotencykey_created_at" to table: "idempotency_keys"
CREATE INDEX `idempotencykey_created_at` ON `idempotency_keys` (`created_at`);
-- Create index "idempotencykey_updated_at" to table: "idempotency_keys"
CREATE INDEX `idempotencykey_updated_at` ON `idempotency_keys` (`updated_at`);
-- Create index "idempotencykey_principal_key" to table: "idempotency_keys"
CREATE UNIQUE INDEX `idempotencykey_principal_key` ON `idempotency_keys` (`principal`, `key`);
-- Create "items" table
CREATE TABLE `items` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `revision` integer NOT NULL DEFAULT (1), `quantity` integer NOT NULL DEFAULT (0), `reserved_quantity` integer NOT NULL DEFAULT (0), `lot` text NOT NULL DEFAULT (''), `serial` text NOT NULL DEFAULT (''), `status` text NOT NULL DEFAULT ('available'), `expires_at` datetime NULL, `hub_id` text NOT NULL, `part_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `items_hubs_items` FOREIGN KEY (`hub_id`) REFERENCES `hubs` (`id`) ON DELETE NO ACTION, CONSTRAINT `items_parts_items` FOREIGN KEY (`part_id`) REFERENCES `parts` (`id`) ON DELETE NO ACTION);
-- Create index "item_created_at" to table: "items"
CREATE INDEX `item_created_at` ON `items` (`created_at`);
-- Create index "item_updated_at" to table: "items"
CREATE INDEX `item_updated_at` ON `items` (`updated_at`);
-- Create index "item_part_id" to table: "items"
CREATE INDEX `item_part_id` ON `items` (`part_id`);
-- Create index "item_hub_id_part_id_status" to table: "items"
CREATE INDEX `item_hub_id_part_id_status` ON `items` (`hub_id`, `part_id`, `status`);
-- Create index "item_quantity" to table: "items"
CREATE INDEX `item_quantity` ON `items` (`quantity`);
-- Create index "item_reserved_quantity" to table: "items"
CREATE INDEX `item_reserved_quantity` ON `items` (`reserved_quantity`);
-- Create index "item_status" to table: "items"
CREATE INDEX `item_status` ON `items` (`status`);
-- Create index "item_lot" to table: "items"
CREATE INDEX `item_lot` ON `items` (`lot`);
-- Create index "item_serial" to table: "items"
CREATE INDEX `item_serial` ON `items` (`serial`);
-- Create index "item_expires_at" to table: "items"
CREATE INDEX `item_expires_at` ON `items` (`expires_at`);
-- Create "orders" table
CREATE TABLE `orders` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `revision` integer NOT NULL DEFAULT (1), `number` text NOT NULL, `status` text NOT NULL, `customer_ref` text NOT NULL DEFAULT (''), `priority` text NOT NULL DEFAULT ('normal'), `ship_to_name` text NOT NULL DEFAULT (''), `ship_to_line1` text NOT NULL DEFAULT (''), `ship_to_line2` text NOT NULL DEFAULT (''), `ship_to_city` text NOT NULL DEFAULT (''), `ship_to_postal_code` text NOT NULL DEFAULT (''), `ship_to_country` text NOT NULL DEFAULT (''), `due_at` datetime NULL, `hub_id` text NOT NULL, `workflow_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `orders_hubs_orders` FOREIGN KEY (`hub_id`) REFERENCES `hubs` (`id`) ON DELETE NO ACTION, CONSTRAINT `orders_workflows_orders` FOREIGN KEY (`workflow_id`) REFERENCES `workflows` (`id`) ON DELETE NO ACTION);
-- Create index "orders_number_key" to table: "orders"
CREATE UNIQUE INDEX `orders_number_key` ON `orders` (`number`);
-- Create index "order_created_at" to table: "orders"
CREATE INDEX `order_created_at` ON `orders` (`created_at`);
-- Create index "order_updated_at" to table: "orders"
CREATE INDEX `order_updated_at` ON `orders` (`updated_at`);
-- Create index "order_status_id" to table: "orders"
CREATE INDEX `order_status_id` ON `orders` (`status`, `id`);
-- Create index "order_hub_id_status" to table: "orders"
CREATE INDEX `order_hub_id_status` ON `orders` (`hub_id`, `status`);
-- Create index "order_workflow_id" to table: "orders"
CREATE INDEX `order_workflow_id` ON `orders` (`workflow_id`);
-- Create index "order_customer_ref" to table: "orders"
CREATE INDEX `order_customer_ref` ON `orders` (`customer_ref`);
-- Create index "order_priority" to table: "orders"
CREATE INDEX `order_priority` ON `orders` (`priority`);
-- Create index "order_due_at" to table: "orders"
CREATE INDEX `order_due_at` ON `orders` (`due_at`);
-- Create index "order_ship_to_name" to table: "orders"
CREATE INDEX `order_ship_to_name` ON `orders` (`ship_to_name`);
-- Create index "order_ship_to_city" to table: "orders"
CREATE INDEX `order_ship_to_city` ON `orders` (`ship_to_city`);
-- Create index "order_ship_to_postal_code" to table: "orders"
CREATE INDEX `order_ship_to_postal_code` ON `orders` (`ship_to_postal_code`);
-- Create index "order_ship_to_country" to table: "orders"
CREATE INDEX `order_ship_to_country` ON `orders` (`ship_to_country`);
-- Create "order_events" table
CREATE TABLE `order_events` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `from_state` text NOT NULL, `to_state` text NOT NULL, `transition` text NOT NULL, `actor` text NOT NULL, `occurred_at` datetime NOT NULL, `order_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `order_events_orders_events` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE NO ACTION);
-- Create index "orderevent_created_at" to table: "order_events"
CREATE INDEX `orderevent_created_at` ON `order_events` (`created_at`);
-- Create index "orderevent_updated_at" to table: "order_events"
CREATE INDEX `orderevent_updated_at` ON `order_events` (`updated_at`);
-- Create index "orderevent_order_id_occurred_at" to table: "order_events"
CREATE INDEX `orderevent_order_id_occurred_at` ON `order_events` (`order_id`, `occurred_at`);
-- Create index "orderevent_transition" to table: "order_events"
CREATE INDEX `orderevent_transition` ON `order_events` (`transition`);
-- Create index "orderevent_to_state" to table: "order_events"
CREATE INDEX `orderevent_to_state` ON `order_events` (`to_state`);
-- Create "order_lines" table
CREATE TABLE `order_lines` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `revision` integer NOT NULL DEFAULT (1), `quantity` integer NOT NULL DEFAULT (0), `allocated_quantity` integer NOT NULL DEFAULT (0), `shipped_quantity` integer NOT NULL DEFAULT (0), `order_id` text NOT NULL, `part_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `order_lines_orders_lines` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE NO ACTION, CONSTRAINT `order_lines_parts_order_lines` FOREIGN KEY (`part_id`) REFERENCES `parts` (`id`) ON DELETE NO ACTION);
-- Create index "orderline_created_at" to table: "order_lines"
CREATE INDEX `orderline_created_at` ON `order_lines` (`created_at`);
-- Create index "orderline_updated_at" to table: "order_lines"
CREATE INDEX `orderline_updated_at` ON `order_lines` (`updated_at`);
-- Create index "orderline_order_id" to table: "order_lines"
CREATE INDEX `orderline_order_id` ON `order_lines` (`order_id`);
-- Create index "orderline_part_id" to table: "order_lines"
CREATE INDEX `orderline_part_id` ON `order_lines` (`part_id`);
-- Create "parts" table
CREATE TABLE `parts` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `revision` integer NOT NULL DEFAULT (1), `sku` text NOT NULL, `part_name` text NOT NULL, `description` text NOT NULL DEFAULT (''), `unit` text NOT NULL DEFAULT ('ea'), `unit_weight_kg` integer NOT NULL DEFAULT (0), `hazardous` bool NOT NULL DEFAULT (false), PRIMARY KEY (`id`));
-- Create index "parts_sku_key" to table: "parts"
CREATE UNIQUE INDEX `parts_sku_key` ON `parts` (`sku`);
-- Create index "part_created_at" to table: "parts"
CREATE INDEX `part_created_at` ON `parts` (`created_at`);
-- Create index "part_updated_at" to table: "parts"
CREATE INDEX `part_updated_at` ON `parts` (`updated_at`);
-- Create index "part_part_name" to table: "parts"
CREATE INDEX `part_part_name` ON `parts` (`part_name`);
-- Create index "part_unit" to table: "parts"
CREATE INDEX `part_unit` ON `parts` (`unit`);
-- Create index "part_unit_weight_kg" to table: "parts"
CREATE INDEX `part_unit_weight_kg` ON `parts` (`unit_weight_kg`);
-- Create index "part_hazardous" to table: "parts"
CREATE INDEX `part_hazardous` ON `parts` (`hazardous`);
-- Create "reservations" table
CREATE TABLE `reservations` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `order_id` text NOT NULL, `order_line_id` text NOT NULL, `item_id` text NOT NULL, `quantity` integer NOT NULL DEFAULT (0), PRIMARY KEY (`id`));
-- Create index "reservation_created_at" to table: "reservations"
CREATE INDEX `reservation_created_at` ON `reservations` (`created_at`);
-- Create index "reservation_updated_at" to table: "reservations"
CREATE INDEX `reservation_updated_at` ON `reservations` (`updated_at`);
-- Create index "reservation_order_id" to table: "reservations"
CREATE INDEX `reservation_order_id` ON `reservations` (`order_id`);
-- Create index "reservation_order_line_id" to table: "reservations"
CREATE INDEX `reservation_order_line_id` ON `reservations` (`order_line_id`);
-- Create index "reservation_item_id" to table: "reservations"
CREATE INDEX `reservation_item_id` ON `reservations` (`item_id`);
-- Create "sessions" table
CREATE TABLE `sessions` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `token_hash` text NOT NULL, `csrf_token` text NOT NULL, `expires_at` datetime NOT NULL, `last_seen_at` datetime NOT NULL, `user_agent` text NOT NULL DEFAULT (''), `remote_addr` text NOT NULL DEFAULT (''), `user_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `sessions_users_sessions` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE NO ACTION);
-- Create index "sessions_token_hash_key" to table: "sessions"
CREATE UNIQUE INDEX `sessions_token_hash_key` ON `sessions` (`token_hash`);
-- Create index "session_created_at" to table: "sessions"
CREATE INDEX `session_created_at` ON `sessions` (`created_at`);
-- Create index "session_updated_at" to table: "sessions"
CREATE INDEX `session_updated_at` ON `sessions` (`updated_at`);
-- Create index "session_user_id" to table: "sessions"
CREATE INDEX `session_user_id` ON `sessions` (`user_id`);
-- Create index "session_expires_at" to table: "sessions"
CREATE INDEX `session_expires_at` ON `sessions` (`expires_at`);
-- Create "tracking_entries" table
CREATE TABLE `tracking_entries` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `revision` integer NOT NULL DEFAULT (1), `tracking_number` text NOT NULL, `carrier` text NOT NULL, `status` text NOT NULL, `location` text NOT NULL DEFAULT (''), `description` text NOT NULL DEFAULT (''), `occurred_at` datetime NOT NULL, `hub_id` text NULL, `order_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `tracking_entries_hubs_tracking_entries` FOREIGN KEY (`hub_id`) REFERENCES `hubs` (`id`) ON DELETE SET NULL, CONSTRAINT `tracking_entries_orders_tracking_entries` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE NO ACTION);
-- Create index "trackingentry_created_at" to table: "tracking_entries"
CREATE INDEX `trackingentry_created_at` ON `tracking_entries` (`created_at`);
-- Create index "trackingentry_updated_at" to table: "tracking_entries"
CREATE INDEX `trackingentry_updated_at` ON `tracking_entries` (`updated_at`);
-- Create index "trackingentry_order_id_occurred_at_id" to table: "tracking_entries"
CREATE INDEX `trackingentry_order_id_occurred_at_id` ON `tracking_entries` (`order_id`, `occurred_at` DESC, `id`);
-- Create index "trackingentry_tracking_number" to table: "tracking_entries"
CREATE INDEX `trackingentry_tracking_number` ON `tracking_entries` (`tracking_number`);
-- Create index "trackingentry_carrier" to table: "tracking_entries"
CREATE INDEX `trackingentry_carrier` ON `tracking_entries` (`carrier`);
-- Create index "trackingentry_status" to table: "tracking_entries"
CREATE INDEX `trackingentry_status` ON `tracking_entries` (`status`);
-- Create index "trackingentry_hub_id" to table: "tracking_entries"
CREATE INDEX `trackingentry_hub_id` ON `tracking_entries` (`hub_id`);
-- Create index "trackingentry_location" to table: "tracking_entries"
CREATE INDEX `trackingentry_location` ON `tracking_entries` (`location`);
-- Create index "trackingentry_occurred_at" to table: "tracking_entries"
CREATE INDEX `trackingentry_occurred_at` ON `tracking_entries` (`occurred_at`);
-- Create "users" table
CREATE TABLE `users` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `email` text NOT NULL, `name` text NOT NULL DEFAULT (''), `password_hash` text NOT NULL, `role` text NOT NULL DEFAULT ('member'), `disabled` bool NOT NULL DEFAULT (false), `last_login_at` datetime NULL, PRIMARY KEY (`id`));
-- Create index "users_email_key" to table: "users"
CREATE UNIQUE INDEX `users_email_key` ON `users` (`email`);
-- Create index "user_created_at" to table: "users"
CREATE INDEX `user_created_at` ON `users` (`created_at`);
-- Create index "user_updated_at" to table: "users"
CREATE INDEX `user_updated_at` ON `users` (`updated_at`);
-- Create "webhook_deliveries" table
CREATE TABLE `webhook_deliveries` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `event_id` text NOT NULL DEFAULT (''), `event_type` text NOT NULL, `payload` blob NULL, `status` text NOT NULL DEFAULT ('pending'), `attempts` integer NOT NULL DEFAULT (0), `next_attempt_at` datetime NOT NULL, `last_attempt_at` datetime NULL, `last_status_code` integer NOT NULL DEFAULT (0), `last_latency_ms` integer NOT NULL DEFAULT (0), `last_response` text NOT NULL DEFAULT (''), `last_error` text NOT NULL DEFAULT (''), `delivered_at` datetime NULL, `endpoint_id` text NOT NULL, PRIMARY KEY (`id`), CONSTRAINT `webhook_deliveries_webhook_endpoints_deliveries` FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints` (`id`) ON DELETE CASCADE);
-- Create index "webhookdelivery_created_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_created_at` ON `webhook_deliveries` (`created_at`);
-- Create index "webhookdelivery_updated_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_updated_at` ON `webhook_deliveries` (`updated_at`);
-- Create index "webhookdelivery_status_next_attempt_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_status_next_attempt_at` ON `webhook_deliveries` (`status`, `next_attempt_at`);
-- Create index "webhookdelivery_endpoint_id_created_at" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_endpoint_id_created_at` ON `webhook_deliveries` (`endpoint_id`, `created_at`);
-- Create index "webhookdelivery_event_id" to table: "webhook_deliveries"
CREATE INDEX `webhookdelivery_event_id` ON `webhook_deliveries` (`event_id`);
-- Create "webhook_endpoints" table
CREATE TABLE `webhook_endpoints` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `url` text NOT NULL, `description` text NOT NULL DEFAULT (''), `event_types` json NULL, `disabled` bool NOT NULL DEFAULT (false), `disabled_reason` text NOT NULL DEFAULT (''), `secret` text NOT NULL, `previous_secret` text NOT NULL DEFAULT (''), `previous_secret_expires_at` datetime NULL, PRIMARY KEY (`id`));
-- Create index "webhookendpoint_created_at" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_created_at` ON `webhook_endpoints` (`created_at`);
-- Create index "webhookendpoint_updated_at" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_updated_at` ON `webhook_endpoints` (`updated_at`);
-- Create index "webhookendpoint_disabled" to table: "webhook_endpoints"
CREATE INDEX `webhookendpoint_disabled` ON `webhook_endpoints` (`disabled`);
-- Create "workflows" table
CREATE TABLE `workflows` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `key` text NOT NULL, `name` text NOT NULL, `version` integer NOT NULL, `latest` bool NOT NULL DEFAULT (true), `built_in` bool NOT NULL DEFAULT (false), `states` json NOT NULL, `initial_state` text NOT NULL, `transitions` json NOT NULL, PRIMARY KEY (`id`));
-- Create index "workflow_created_at" to table: "workflows"
CREATE INDEX `workflow_created_at` ON `workflows` (`created_at`);
-- Create index "workflow_updated_at" to table: "workflows"
CREATE INDEX `workflow_updated_at` ON `workflows` (`updated_at`);
-- Create index "workflow_key_version" to table: "workflows"
CREATE UNIQUE INDEX `workflow_key_version` ON `workflows` (`key`, `version`);
-- Create index "workflow_latest" to table: "workflows"
CREATE INDEX `workflow_latest` ON `workflows` (`latest`);
-- Create "event_counter" table
CREATE TABLE `event_counter` (`id` integer NULL, `last_value` integer NOT NULL, PRIMARY KEY (`id`));
-- Create "webhook_endpoints_stamp" table
CREATE TABLE `webhook_endpoints_stamp` (`id` integer NULL, `stamp` integer NOT NULL, PRIMARY KEY (`id`));
