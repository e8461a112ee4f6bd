-- Hand-written (issue 26, remote-state sync): the definitions of the sync modules (feature flags
-- with their versions, scheduled changes, exposures and sticky assignments; subscription lists;
-- push channels and categories), the per-environment definitions revision that orders their
-- commits (engage/definitions: one counter row, bumped under its lock in each writing
-- transaction, so revisions follow commit order), and the sync revisions of installations and
-- profiles (bumped by profile state with each change of what a document is derived from).
CREATE TABLE `sync_environments` (
	`environment_id` text PRIMARY KEY NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL,
	`horizon` integer DEFAULT 0 NOT NULL,
	`refresh_after_seconds` integer DEFAULT 900 NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `flags` (
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`revision` integer NOT NULL,
	`definition` text NOT NULL,
	`configuration_managed` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`environment_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `flags_revision` ON `flags` (`environment_id`,`revision`);
--> statement-breakpoint
CREATE TABLE `flag_versions` (
	`environment_id` text NOT NULL,
	`flag_key` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`origin` text NOT NULL,
	`actor` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`environment_id`, `flag_key`, `version`)
);
--> statement-breakpoint
CREATE TABLE `flag_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`flag_key` text NOT NULL,
	`due_ms` integer NOT NULL,
	`definition` text NOT NULL,
	`status` text NOT NULL,
	`actor` text NOT NULL,
	`created_at` text NOT NULL,
	`applied_version` integer,
	`applied_at` text
);
--> statement-breakpoint
CREATE INDEX `flag_schedules_flag` ON `flag_schedules` (`environment_id`,`flag_key`,`due_ms`);
--> statement-breakpoint
CREATE INDEX `flag_schedules_due` ON `flag_schedules` (`status`,`due_ms`);
--> statement-breakpoint
CREATE TABLE `flag_exposures` (
	`environment_id` text NOT NULL,
	`flag_key` text NOT NULL,
	`experiment_id` text NOT NULL,
	`revision` integer NOT NULL,
	`installation_id` text NOT NULL,
	`variant_key` text NOT NULL,
	`exposed_ms` integer NOT NULL,
	PRIMARY KEY(`environment_id`, `flag_key`, `experiment_id`, `revision`, `installation_id`)
);
--> statement-breakpoint
CREATE INDEX `flag_exposures_installation` ON `flag_exposures` (`installation_id`);
--> statement-breakpoint
CREATE TABLE `flag_sticky_assignments` (
	`installation_id` text NOT NULL,
	`flag_key` text NOT NULL,
	`environment_id` text NOT NULL,
	`experiment_id` text DEFAULT '' NOT NULL,
	`variant_key` text NOT NULL,
	`assigned_ms` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `flag_key`)
);
--> statement-breakpoint
CREATE INDEX `flag_sticky_assignments_environment` ON `flag_sticky_assignments` (`environment_id`);
--> statement-breakpoint
CREATE TABLE `subscription_lists` (
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`revision` integer NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`definition` text NOT NULL,
	`configuration_managed` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`environment_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `subscription_lists_revision` ON `subscription_lists` (`environment_id`,`revision`);
--> statement-breakpoint
CREATE TABLE `push_channels` (
	`environment_id` text NOT NULL,
	`app_id` text NOT NULL,
	`key` text NOT NULL,
	`revision` integer NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`definition` text NOT NULL,
	`configuration_managed` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`app_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `push_channels_revision` ON `push_channels` (`environment_id`,`revision`);
--> statement-breakpoint
ALTER TABLE `installations` ADD `sync_revision` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `profiles` ADD `sync_revision` integer DEFAULT 0 NOT NULL;
