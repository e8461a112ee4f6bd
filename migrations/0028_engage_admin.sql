-- Hand-written (issue 24, the engagement administration API): environments gain a display name,
-- a status (DELETING while the durable deletion job erases them) and the configuration-managed
-- mark of `engage apply`; apps a bundle id or package name; access keys an expiry and the
-- previous secret kept during a rotation's overlap; templates the managed mark; sends a test
-- mark (test sends are excluded from rate limits and counts); test groups and their members;
-- audit events the environment they are about.
ALTER TABLE `environments` ADD `display_name` text;
--> statement-breakpoint
ALTER TABLE `environments` ADD `status` text DEFAULT 'ACTIVE' NOT NULL;
--> statement-breakpoint
ALTER TABLE `environments` ADD `configuration_managed` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `apps` ADD `bundle_id` text;
--> statement-breakpoint
ALTER TABLE `apps` ADD `configuration_managed` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `access_keys` ADD `expires_at` text;
--> statement-breakpoint
ALTER TABLE `access_keys` ADD `key_hint` text;
--> statement-breakpoint
ALTER TABLE `access_keys` ADD `previous_key_digest` text;
--> statement-breakpoint
ALTER TABLE `access_keys` ADD `previous_expires_at` text;
--> statement-breakpoint
ALTER TABLE `access_keys` ADD `configuration_managed` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX `access_keys_previous_key_digest_unique` ON `access_keys` (`previous_key_digest`);
--> statement-breakpoint
ALTER TABLE `push_templates` ADD `configuration_managed` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `push_sends` ADD `is_test` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TABLE `test_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`name` text NOT NULL,
	`configuration_managed` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `test_groups_environment_name` ON `test_groups` (`environment_id`,`name`);
--> statement-breakpoint
CREATE TABLE `test_group_members` (
	`group_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`position` integer NOT NULL,
	`installation_id` text,
	`external_id` text,
	PRIMARY KEY(`group_id`, `position`),
	FOREIGN KEY (`group_id`) REFERENCES `test_groups`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `test_group_members_installation` ON `test_group_members` (`environment_id`,`installation_id`);
--> statement-breakpoint
ALTER TABLE `audit_events` ADD `environment_id` text;
--> statement-breakpoint
CREATE INDEX `audit_events_environment_created` ON `audit_events` (`environment_id`,`created_at`,`id`);
