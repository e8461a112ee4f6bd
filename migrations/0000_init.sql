CREATE TABLE `authorization_codes` (
	`code_digest` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`code_challenge` text NOT NULL,
	`scope` text NOT NULL,
	`resource` text,
	`nonce` text,
	`auth_time` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`grant_id` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `clients` (
	`tenant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`display_name` text NOT NULL,
	`application_type` text NOT NULL,
	`token_endpoint_auth_method` text NOT NULL,
	`consent_policy` text NOT NULL,
	`redirect_uris` text NOT NULL,
	`scopes` text NOT NULL,
	`default_resource` text,
	`native_authentication_enabled` integer DEFAULT false NOT NULL,
	`secret_digest` text,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`configuration_managed` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `client_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `consents` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`client_id` text NOT NULL,
	`scope` text NOT NULL,
	`resource` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`, `client_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `grants` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text NOT NULL,
	`scope` text NOT NULL,
	`resource` text,
	`auth_time` integer NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `grants_subject_client` ON `grants` (`tenant_id`,`user_id`,`client_id`);--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_digest` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`grant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`scope` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`rotated_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`grant_id`) REFERENCES `grants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_grant` ON `refresh_tokens` (`grant_id`);--> statement-breakpoint
CREATE TABLE `resource_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`resource_id` text NOT NULL,
	`secret_digest` text NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`resource_id`) REFERENCES `resources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `resource_credentials_tenant` ON `resource_credentials` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `resources` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`uri` text NOT NULL,
	`audience` text NOT NULL,
	`scopes` text NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `resources_tenant_uri` ON `resources` (`tenant_id`,`uri`);--> statement-breakpoint
CREATE UNIQUE INDEX `resources_tenant_audience` ON `resources` (`tenant_id`,`audience`);--> statement-breakpoint
CREATE TABLE `revoked_access_tokens` (
	`jti` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`state` text NOT NULL,
	`alg` text DEFAULT 'RS256' NOT NULL,
	`public_jwk` text NOT NULL,
	`private_sealed` text NOT NULL,
	`created_at` text NOT NULL,
	`activated_at` text,
	`retired_at` text,
	`retire_after` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `signing_keys_tenant_state` ON `signing_keys` (`tenant_id`,`state`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`managed_path` text NOT NULL,
	`custom_issuer` text,
	`custom_host` text,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`registration_mode` text DEFAULT 'CONTROLLED' NOT NULL,
	`is_control` integer DEFAULT false NOT NULL,
	`configuration_managed` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_slug_unique` ON `tenants` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_managed_path_unique` ON `tenants` (`managed_path`);--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_custom_issuer_unique` ON `tenants` (`custom_issuer`);--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_custom_host_unique` ON `tenants` (`custom_host`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subject` text NOT NULL,
	`email` text NOT NULL,
	`email_verified` integer DEFAULT false NOT NULL,
	`password_hash` text,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_tenant_subject` ON `users` (`tenant_id`,`subject`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_tenant_email` ON `users` (`tenant_id`,`email`);