-- Hand-written (issue 13): transactional push templates, sends and the delivery outbox.
CREATE TABLE `push_credentials` (
	`app_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`provider` text NOT NULL,
	`info` text NOT NULL,
	`sealed` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`app_id`, `provider`)
);
--> statement-breakpoint
CREATE TABLE `push_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`published_version` integer,
	`latest_version` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `push_template_versions` (
	`template_id` text NOT NULL,
	`version` integer NOT NULL,
	`state` text NOT NULL,
	`definition` text NOT NULL,
	`created_at` text NOT NULL,
	`published_at` text,
	PRIMARY KEY(`template_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `push_rate_windows` (
	`template_id` text NOT NULL,
	`window_ms` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`template_id`, `window_ms`)
);
--> statement-breakpoint
CREATE TABLE `push_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`template_id` text NOT NULL,
	`template_version` integer NOT NULL,
	`idempotency_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`access_key_id` text NOT NULL,
	`recipient_type` text NOT NULL,
	`recipient_value` text NOT NULL,
	`response` text NOT NULL,
	`created_at` text NOT NULL,
	`created_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `push_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`send_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`template_id` text NOT NULL,
	`installation_id` text NOT NULL,
	`app_id` text NOT NULL,
	`provider` text NOT NULL,
	`token` text NOT NULL,
	`content_hash` text NOT NULL,
	`message` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_ms` integer NOT NULL,
	`expires_ms` integer NOT NULL,
	`last_error` text,
	`created_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	`sent_at` text,
	`delivered_at` text,
	`opened_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_templates_environment_key` ON `push_templates` (`environment_id`,`key`);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_sends_idempotency` ON `push_sends` (`environment_id`,`idempotency_key`);
--> statement-breakpoint
CREATE INDEX `push_sends_template` ON `push_sends` (`template_id`,`created_ms`);
--> statement-breakpoint
CREATE INDEX `push_deliveries_due` ON `push_deliveries` (`state`,`next_attempt_ms`);
--> statement-breakpoint
CREATE INDEX `push_deliveries_send` ON `push_deliveries` (`send_id`);
--> statement-breakpoint
CREATE INDEX `push_deliveries_installation` ON `push_deliveries` (`installation_id`,`template_id`,`created_ms`);
--> statement-breakpoint
CREATE INDEX `push_deliveries_template` ON `push_deliveries` (`template_id`,`state`);
