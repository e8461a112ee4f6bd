-- Hand-written (issue 11): the tenant directory (spec 03) and the audit trail, and row 3 of
-- catalog_version, the directory permission version: it moves with every change to permissions,
-- roles, role permissions and role assignments, so processes keep permission answers in memory
-- while it stands still (src/identity/directory/permissions.ts).
CREATE TABLE `directory_organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`slug` text NOT NULL,
	`display_name` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_teams` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`slug` text NOT NULL,
	`display_name` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `directory_organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_organization_members` (
	`tenant_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`subject` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `subject`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `directory_organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_team_members` (
	`tenant_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`team_id` text NOT NULL,
	`subject` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `subject`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `directory_organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `directory_teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_permissions` (
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`display_name` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `key`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_roles` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`display_name` text NOT NULL,
	`scope` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_role_permissions` (
	`tenant_id` text NOT NULL,
	`role_id` text NOT NULL,
	`permission_key` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`role_id`, `permission_key`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`role_id`) REFERENCES `directory_roles`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `directory_role_assignments` (
	`tenant_id` text NOT NULL,
	`role_id` text NOT NULL,
	`subject` text NOT NULL,
	`scope` text NOT NULL,
	`organization_id` text,
	`team_id` text,
	`context_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`role_id`, `subject`, `context_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`role_id`) REFERENCES `directory_roles`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `directory_organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `directory_teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`actor_subject` text NOT NULL,
	`actor_client_id` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`details` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_organizations_tenant_slug` ON `directory_organizations` (`tenant_id`,`slug`);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_teams_organization_slug` ON `directory_teams` (`organization_id`,`slug`);
--> statement-breakpoint
CREATE INDEX `directory_team_members_organization_subject` ON `directory_team_members` (`organization_id`,`subject`);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_roles_tenant_key` ON `directory_roles` (`tenant_id`,`key`);
--> statement-breakpoint
CREATE INDEX `directory_role_assignments_tenant_subject` ON `directory_role_assignments` (`tenant_id`,`subject`);
--> statement-breakpoint
CREATE INDEX `audit_events_created` ON `audit_events` (`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `audit_events_tenant_created` ON `audit_events` (`tenant_id`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `audit_events_action_created` ON `audit_events` (`action`,`created_at`,`id`);
--> statement-breakpoint
CREATE INDEX `audit_events_actor_created` ON `audit_events` (`actor_subject`,`created_at`,`id`);
--> statement-breakpoint
INSERT INTO `catalog_version` (`id`, `version`) VALUES (3, 1);
--> statement-breakpoint
CREATE TRIGGER `directory_version_permissions_insert` AFTER INSERT ON `directory_permissions` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_permissions_update` AFTER UPDATE ON `directory_permissions` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_permissions_delete` AFTER DELETE ON `directory_permissions` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_roles_insert` AFTER INSERT ON `directory_roles` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_roles_update` AFTER UPDATE ON `directory_roles` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_roles_delete` AFTER DELETE ON `directory_roles` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_permissions_insert` AFTER INSERT ON `directory_role_permissions` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_permissions_update` AFTER UPDATE ON `directory_role_permissions` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_permissions_delete` AFTER DELETE ON `directory_role_permissions` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_assignments_insert` AFTER INSERT ON `directory_role_assignments` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_assignments_update` AFTER UPDATE ON `directory_role_assignments` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
--> statement-breakpoint
CREATE TRIGGER `directory_version_role_assignments_delete` AFTER DELETE ON `directory_role_assignments` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 3; END;
