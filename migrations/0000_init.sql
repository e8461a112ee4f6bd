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
	`replaced_by` text,
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
CREATE UNIQUE INDEX `users_tenant_email` ON `users` (`tenant_id`,`email`);--> statement-breakpoint
CREATE TABLE `browser_interactions` (
	`id_digest` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`session_id` text NOT NULL,
	`request` text NOT NULL,
	`user_id` text,
	`auth_time` integer,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`session_id`) REFERENCES `browser_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `browser_interactions_expiry` ON `browser_interactions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `browser_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`token_digest` text NOT NULL,
	`active_user_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `browser_sessions_token_digest_unique` ON `browser_sessions` (`token_digest`);--> statement-breakpoint
CREATE INDEX `browser_sessions_expiry` ON `browser_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `login_throttle` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`last_failure_at` integer NOT NULL,
	`locked_until` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `session_accounts` (
	`session_id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`auth_time` integer NOT NULL,
	PRIMARY KEY(`session_id`, `user_id`),
	FOREIGN KEY (`session_id`) REFERENCES `browser_sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `access_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`name` text,
	`key_digest` text NOT NULL,
	`app_ids` text NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` text NOT NULL,
	`rotated_at` text,
	`revoked_at` text,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_keys_key_digest_unique` ON `access_keys` (`key_digest`);--> statement-breakpoint
CREATE INDEX `access_keys_environment` ON `access_keys` (`environment_id`);--> statement-breakpoint
CREATE TABLE `apps` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`platform` text NOT NULL,
	`name` text NOT NULL,
	`app_key` text NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `apps_app_key_unique` ON `apps` (`app_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `apps_environment_name` ON `apps` (`environment_id`,`name`);--> statement-breakpoint
CREATE TABLE `binding_codes` (
	`code_digest` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`installation_id` text NOT NULL,
	`generation` integer NOT NULL,
	`code_sealed` text NOT NULL,
	`status` text NOT NULL,
	`expires_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`installation_id`) REFERENCES `installations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `binding_codes_one_pending` ON `binding_codes` (`installation_id`) WHERE status = 'PENDING';--> statement-breakpoint
CREATE TABLE `binding_transitions` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`installation_id` text NOT NULL,
	`response` text NOT NULL,
	`committed_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `binding_transitions_idempotency` ON `binding_transitions` (`environment_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `binding_transitions_installation` ON `binding_transitions` (`installation_id`);--> statement-breakpoint
CREATE TABLE `environments` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `environments_name_unique` ON `environments` (`name`);--> statement-breakpoint
CREATE TABLE `installation_attributes` (
	`installation_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text,
	`ms` integer NOT NULL,
	`op` text NOT NULL,
	PRIMARY KEY(`installation_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `installation_generations` (
	`installation_id` text NOT NULL,
	`generation` integer NOT NULL,
	`profile_id` text NOT NULL,
	`binding_state` text NOT NULL,
	`committed_at` text NOT NULL,
	PRIMARY KEY(`installation_id`, `generation`),
	FOREIGN KEY (`installation_id`) REFERENCES `installations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `installation_subscriptions` (
	`installation_id` text NOT NULL,
	`list` text NOT NULL,
	`subscribed` integer NOT NULL,
	`ms` integer NOT NULL,
	`op` text NOT NULL,
	PRIMARY KEY(`installation_id`, `list`)
);
--> statement-breakpoint
CREATE TABLE `installations` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`app_id` text NOT NULL,
	`platform` text NOT NULL,
	`locale` text NOT NULL,
	`timezone` text NOT NULL,
	`sdk_version` text NOT NULL,
	`app_version` text NOT NULL,
	`app_build` text,
	`device_model` text,
	`os_version` text,
	`credential_digest` text NOT NULL,
	`revocation_digest` text NOT NULL,
	`recovery_digest` text NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`profile_id` text NOT NULL,
	`binding_state` text DEFAULT 'ANONYMOUS' NOT NULL,
	`privacy` text DEFAULT 'OPTED_IN' NOT NULL,
	`privacy_ms` integer DEFAULT 0 NOT NULL,
	`privacy_op` text DEFAULT '' NOT NULL,
	`push_subscription` text DEFAULT 'OPTED_IN' NOT NULL,
	`push_subscription_ms` integer DEFAULT 0 NOT NULL,
	`push_subscription_op` text DEFAULT '' NOT NULL,
	`push_permission` text DEFAULT 'NOT_DETERMINED' NOT NULL,
	`push_permission_ms` integer DEFAULT 0 NOT NULL,
	`push_permission_op` text DEFAULT '' NOT NULL,
	`push_token` text,
	`push_token_ms` integer DEFAULT 0 NOT NULL,
	`push_token_op` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`app_id`) REFERENCES `apps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `installations_credential_digest_unique` ON `installations` (`credential_digest`);--> statement-breakpoint
CREATE UNIQUE INDEX `installations_revocation_digest_unique` ON `installations` (`revocation_digest`);--> statement-breakpoint
CREATE UNIQUE INDEX `installations_recovery_digest_unique` ON `installations` (`recovery_digest`);--> statement-breakpoint
CREATE INDEX `installations_environment` ON `installations` (`environment_id`);--> statement-breakpoint
CREATE INDEX `installations_profile` ON `installations` (`profile_id`);--> statement-breakpoint
CREATE TABLE `operation_batches` (
	`installation_id` text NOT NULL,
	`batch_id` text NOT NULL,
	`result` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`installation_id`, `batch_id`)
);
--> statement-breakpoint
CREATE TABLE `operations` (
	`seq` integer PRIMARY KEY NOT NULL,
	`installation_id` text NOT NULL,
	`operation_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`profile_id` text,
	`generation` integer NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`occurred_ms` integer,
	`received_ms` integer NOT NULL,
	`payload` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operations_installation_op` ON `operations` (`installation_id`,`operation_id`);--> statement-breakpoint
CREATE INDEX `operations_profile` ON `operations` (`profile_id`,`seq`);--> statement-breakpoint
CREATE TABLE `profile_attributes` (
	`profile_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text,
	`ms` integer NOT NULL,
	`op` text NOT NULL,
	PRIMARY KEY(`profile_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `profile_subscriptions` (
	`profile_id` text NOT NULL,
	`list` text NOT NULL,
	`channel` text NOT NULL,
	`subscribed` integer NOT NULL,
	`ms` integer NOT NULL,
	`op` text NOT NULL,
	PRIMARY KEY(`profile_id`, `list`, `channel`)
);
--> statement-breakpoint
CREATE TABLE `profile_tags` (
	`profile_id` text NOT NULL,
	`tag` text NOT NULL,
	`present` integer NOT NULL,
	`ms` integer NOT NULL,
	`op` text NOT NULL,
	PRIMARY KEY(`profile_id`, `tag`)
);
--> statement-breakpoint
CREATE TABLE `profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`external_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `profiles_environment_external` ON `profiles` (`environment_id`,`external_id`) WHERE external_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `revoked_installations` (
	`revocation_digest` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`operation_id` text NOT NULL,
	`revoked_at` text NOT NULL
);
