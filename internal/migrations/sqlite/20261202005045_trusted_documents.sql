-- Create "trusted_documents" table
CREATE TABLE `trusted_documents` (`id` text NOT NULL, `created_at` datetime NOT NULL, `updated_at` datetime NOT NULL, `hash` text NOT NULL, `body` text NOT NULL, `operation_name` text NOT NULL DEFAULT (''), `client_name` text NOT NULL DEFAULT (''), `client_version` text NOT NULL DEFAULT (''), `alias` text NOT NULL DEFAULT (''), `retired_at` datetime NULL, PRIMARY KEY (`id`));
-- Create index "trusteddocument_created_at" to table: "trusted_documents"
CREATE INDEX `trusteddocument_created_at` ON `trusted_documents` (`created_at`);
-- Create index "trusteddocument_updated_at" to table: "trusted_documents"
CREATE INDEX `trusteddocument_updated_at` ON `trusted_documents` (`updated_at`);
-- Create index "trusteddocument_hash" to table: "trusted_documents"
CREATE UNIQUE INDEX `trusteddocument_hash` ON `trusted_documents` (`hash`);
-- Create index "trusteddocument_alias" to table: "trusted_documents"
CREATE INDEX `trusteddocument_alias` ON `trusted_documents` (`alias`);
-- Create index "trusteddocument_client_name" to table: "trusted_documents"
CREATE INDEX `trusteddocument_client_name` ON `trusted_documents` (`client_name`);
