-- Hand-written (issue 23 point 7): device authorization requests (RFC 8628), codes kept as digests.
CREATE TABLE `device_authorizations` (
	`device_code_digest` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`user_code_digest` text NOT NULL,
	`scope` text NOT NULL,
	`resource` text,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`poll_interval` integer NOT NULL,
	`last_polled_at` integer,
	`browser_state_digest` text,
	`code_digest` text,
	`user_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_authorizations_user_code` ON `device_authorizations` (`tenant_id`,`user_code_digest`);
--> statement-breakpoint
CREATE INDEX `device_authorizations_expiry` ON `device_authorizations` (`expires_at`);
