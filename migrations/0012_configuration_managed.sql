-- Hand-written (issue 11): what `engage apply` and the control tenant's initialisation own is
-- marked configuration-managed; tenants and clients had the column from 0000.
ALTER TABLE `resources` ADD `configuration_managed` integer DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE `resource_credentials` ADD `configuration_managed` integer DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE `directory_permissions` ADD `configuration_managed` integer DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE `directory_roles` ADD `configuration_managed` integer DEFAULT false NOT NULL;
