-- Hand-written (issue 27, in-app messages: the IN_APP sync module): the messages of an
-- environment with their latest edit and the version syncs serve, their interactions counted per
-- message, variant, type and day (INTERACTION_TRACKED), each installation's impression window per
-- capped message (frequency caps), and the environment's minimum interval between messages with
-- the definitions revision of its last change.
ALTER TABLE `sync_environments` ADD `in_app_min_interval_seconds` integer DEFAULT 30 NOT NULL;
--> statement-breakpoint
ALTER TABLE `sync_environments` ADD `in_app_settings_revision` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TABLE `in_app_messages` (
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`id` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`published_version` integer,
	`published_definition` text,
	`revision` integer NOT NULL,
	`configuration_managed` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`published_at` text,
	PRIMARY KEY(`environment_id`, `key`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `in_app_messages_id` ON `in_app_messages` (`id`);
--> statement-breakpoint
CREATE TABLE `in_app_interactions` (
	`environment_id` text NOT NULL,
	`message_id` text NOT NULL,
	`variant_id` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`day` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`message_id`, `variant_id`, `type`, `day`)
);
--> statement-breakpoint
CREATE INDEX `in_app_interactions_environment` ON `in_app_interactions` (`environment_id`);
--> statement-breakpoint
CREATE TABLE `in_app_impressions` (
	`installation_id` text NOT NULL,
	`message_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`window_start_ms` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`installation_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `in_app_impressions_environment` ON `in_app_impressions` (`environment_id`);
