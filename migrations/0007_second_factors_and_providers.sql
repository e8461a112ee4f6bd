CREATE TABLE `user_totp_factors` (
	`user_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`last_step` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`activated_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `user_recovery_codes` (
	`user_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`code_digest` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `code_digest`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `identity_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`issuer` text NOT NULL,
	`audiences` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `identity_providers_tenant_name` ON `identity_providers` (`tenant_id`,`name`);--> statement-breakpoint
CREATE TABLE `user_identities` (
	`tenant_id` text NOT NULL,
	`issuer` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `issuer`, `subject`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_identities_user` ON `user_identities` (`user_id`);--> statement-breakpoint
ALTER TABLE `browser_interactions` ADD `mfa_user_id` text;
