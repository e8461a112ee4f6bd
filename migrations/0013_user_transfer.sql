-- Hand-written (issue 12): imported password hashes, the (source, externalId) mapping, and the
-- bulk user import/export jobs with their per-record results.
ALTER TABLE `users` ADD `imported_password_hash` text;--> statement-breakpoint
ALTER TABLE `users` ADD `imported_password_format` text;--> statement-breakpoint
CREATE INDEX `users_tenant_created` ON `users` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `user_import_sources` (
	`tenant_id` text NOT NULL,
	`source` text NOT NULL,
	`external_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `source`, `external_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_import_sources_user` ON `user_import_sources` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_transfer_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`source` text,
	`mode` text,
	`idempotency_key` text,
	`request_digest` text,
	`payload` text,
	`total_items` integer DEFAULT 0 NOT NULL,
	`processed_items` integer DEFAULT 0 NOT NULL,
	`succeeded_items` integer DEFAULT 0 NOT NULL,
	`failed_items` integer DEFAULT 0 NOT NULL,
	`snapshot_at` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	`last_failure` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_transfer_jobs_idempotency` ON `user_transfer_jobs` (`tenant_id`,`kind`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `user_transfer_jobs_tenant` ON `user_transfer_jobs` (`tenant_id`,`kind`,`created_at`);--> statement-breakpoint
CREATE INDEX `user_transfer_jobs_pending` ON `user_transfer_jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `user_transfer_results` (
	`job_id` text NOT NULL,
	`position` integer NOT NULL,
	`external_id` text,
	`email` text,
	`status` text NOT NULL,
	`subject` text,
	`error_code` text,
	`processed_at` text NOT NULL,
	PRIMARY KEY(`job_id`, `position`),
	FOREIGN KEY (`job_id`) REFERENCES `user_transfer_jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
