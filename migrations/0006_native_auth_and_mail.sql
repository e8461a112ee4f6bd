CREATE TABLE `native_interactions` (
	`id_digest` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`request` text NOT NULL,
	`flow` text,
	`state` text DEFAULT 'OPEN' NOT NULL,
	`user_id` text,
	`auth_time` integer,
	`challenge_digest` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `native_interactions_expiry` ON `native_interactions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `native_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`interaction_digest` text NOT NULL,
	`purpose` text NOT NULL,
	`email` text NOT NULL,
	`user_id` text,
	`code_digest` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`resend_after` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `native_challenges_address` ON `native_challenges` (`tenant_id`,`purpose`,`email`);--> statement-breakpoint
CREATE INDEX `native_challenges_expiry` ON `native_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `native_grants` (
	`grant_digest` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`interaction_digest` text NOT NULL,
	`purpose` text NOT NULL,
	`email` text NOT NULL,
	`user_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `native_grants_expiry` ON `native_grants` (`expires_at`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`purpose` text NOT NULL,
	`message` text NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_due` ON `mail_outbox` (`status`,`next_attempt_at`);
