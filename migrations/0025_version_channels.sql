-- Hand-written (issue 22 point 6): named version channels replace the three fixed rows of
-- catalog_version (1 the catalogue, 2 the token state, 3 the directory). A channel is a row of
-- version_channels named by what it versions ('catalog', 'token_state', 'directory'; later
-- 'sync:<environment>' and the like), created at its first move. Every trigger that moved a row
-- of catalog_version moves its channel instead, in the same transaction as the change; a
-- channel no trigger moves is moved by the store's versions.bump (platform/store/versions.ts).
CREATE TABLE `version_channels` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `version_channels` (`name`, `version`)
  SELECT CASE `id` WHEN 1 THEN 'catalog' WHEN 2 THEN 'token_state' ELSE 'directory' END, `version` FROM `catalog_version` WHERE `id` IN (1, 2, 3);
--> statement-breakpoint
DROP TRIGGER `catalog_tenants_insert`;
--> statement-breakpoint
CREATE TRIGGER `catalog_tenants_insert` AFTER INSERT ON `tenants` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_tenants_update`;
--> statement-breakpoint
CREATE TRIGGER `catalog_tenants_update` AFTER UPDATE ON `tenants` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_tenants_delete`;
--> statement-breakpoint
CREATE TRIGGER `catalog_tenants_delete` AFTER DELETE ON `tenants` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_signing_keys_insert`;
--> statement-breakpoint
CREATE TRIGGER `catalog_signing_keys_insert` AFTER INSERT ON `signing_keys` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_signing_keys_update`;
--> statement-breakpoint
CREATE TRIGGER `catalog_signing_keys_update` AFTER UPDATE ON `signing_keys` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_signing_keys_delete`;
--> statement-breakpoint
CREATE TRIGGER `catalog_signing_keys_delete` AFTER DELETE ON `signing_keys` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_clients_insert`;
--> statement-breakpoint
CREATE TRIGGER `catalog_clients_insert` AFTER INSERT ON `clients` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_clients_update`;
--> statement-breakpoint
CREATE TRIGGER `catalog_clients_update` AFTER UPDATE ON `clients` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_clients_delete`;
--> statement-breakpoint
CREATE TRIGGER `catalog_clients_delete` AFTER DELETE ON `clients` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_resources_insert`;
--> statement-breakpoint
CREATE TRIGGER `catalog_resources_insert` AFTER INSERT ON `resources` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_resources_update`;
--> statement-breakpoint
CREATE TRIGGER `catalog_resources_update` AFTER UPDATE ON `resources` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_resources_delete`;
--> statement-breakpoint
CREATE TRIGGER `catalog_resources_delete` AFTER DELETE ON `resources` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_resource_credentials_insert`;
--> statement-breakpoint
CREATE TRIGGER `catalog_resource_credentials_insert` AFTER INSERT ON `resource_credentials` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_resource_credentials_update`;
--> statement-breakpoint
CREATE TRIGGER `catalog_resource_credentials_update` AFTER UPDATE ON `resource_credentials` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `catalog_resource_credentials_delete`;
--> statement-breakpoint
CREATE TRIGGER `catalog_resource_credentials_delete` AFTER DELETE ON `resource_credentials` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'catalog'; END;
--> statement-breakpoint
DROP TRIGGER `token_state_grants_revoked`;
--> statement-breakpoint
CREATE TRIGGER `token_state_grants_revoked` AFTER UPDATE OF `revoked_at` ON `grants` WHEN OLD.`revoked_at` IS NOT NEW.`revoked_at` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'token_state'; END;
--> statement-breakpoint
DROP TRIGGER `token_state_grants_delete`;
--> statement-breakpoint
CREATE TRIGGER `token_state_grants_delete` AFTER DELETE ON `grants` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'token_state'; END;
--> statement-breakpoint
DROP TRIGGER `token_state_access_token_revoked`;
--> statement-breakpoint
CREATE TRIGGER `token_state_access_token_revoked` AFTER INSERT ON `revoked_access_tokens` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'token_state'; END;
--> statement-breakpoint
DROP TRIGGER `token_state_users_update`;
--> statement-breakpoint
CREATE TRIGGER `token_state_users_update` AFTER UPDATE OF `status`, `email`, `email_verified`, `subject` ON `users`
  WHEN OLD.`status` IS NOT NEW.`status` OR OLD.`email` IS NOT NEW.`email` OR OLD.`email_verified` IS NOT NEW.`email_verified` OR OLD.`subject` IS NOT NEW.`subject`
  BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'token_state'; END;
--> statement-breakpoint
DROP TRIGGER `token_state_users_delete`;
--> statement-breakpoint
CREATE TRIGGER `token_state_users_delete` AFTER DELETE ON `users` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'token_state'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_permissions_insert`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_permissions_insert` AFTER INSERT ON `directory_permissions` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_permissions_update`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_permissions_update` AFTER UPDATE ON `directory_permissions` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_permissions_delete`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_permissions_delete` AFTER DELETE ON `directory_permissions` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_roles_insert`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_roles_insert` AFTER INSERT ON `directory_roles` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_roles_update`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_roles_update` AFTER UPDATE ON `directory_roles` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_roles_delete`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_roles_delete` AFTER DELETE ON `directory_roles` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_role_permissions_insert`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_permissions_insert` AFTER INSERT ON `directory_role_permissions` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_role_permissions_update`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_permissions_update` AFTER UPDATE ON `directory_role_permissions` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_role_permissions_delete`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_permissions_delete` AFTER DELETE ON `directory_role_permissions` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_role_assignments_insert`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_assignments_insert` AFTER INSERT ON `directory_role_assignments` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_role_assignments_update`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_assignments_update` AFTER UPDATE ON `directory_role_assignments` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TRIGGER `directory_version_role_assignments_delete`;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_assignments_delete` AFTER DELETE ON `directory_role_assignments` BEGIN UPDATE `version_channels` SET `version` = `version` + 1 WHERE `name` = 'directory'; END;
--> statement-breakpoint
DROP TABLE `catalog_version`;
