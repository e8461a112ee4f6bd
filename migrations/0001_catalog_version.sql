-- Hand-written below the generated table: the seed row and the triggers that move the version
-- on every change to the catalogue (src/db/schema/catalog.ts).
CREATE TABLE `catalog_version` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `catalog_version` (`id`, `version`) VALUES (1, 1);
--> statement-breakpoint
CREATE TRIGGER `catalog_tenants_insert` AFTER INSERT ON `tenants` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_tenants_update` AFTER UPDATE ON `tenants` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_tenants_delete` AFTER DELETE ON `tenants` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_signing_keys_insert` AFTER INSERT ON `signing_keys` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_signing_keys_update` AFTER UPDATE ON `signing_keys` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_signing_keys_delete` AFTER DELETE ON `signing_keys` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_clients_insert` AFTER INSERT ON `clients` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_clients_update` AFTER UPDATE ON `clients` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_clients_delete` AFTER DELETE ON `clients` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_resources_insert` AFTER INSERT ON `resources` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_resources_update` AFTER UPDATE ON `resources` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_resources_delete` AFTER DELETE ON `resources` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_resource_credentials_insert` AFTER INSERT ON `resource_credentials` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_resource_credentials_update` AFTER UPDATE ON `resource_credentials` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `catalog_resource_credentials_delete` AFTER DELETE ON `resource_credentials` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 1; END;
