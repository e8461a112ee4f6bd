-- Hand-written (issue 11 point 3): federations between tenants and the brokered sign-ins under way.
CREATE TABLE `federations` (
	`source_tenant_id` text NOT NULL,
	`target_tenant_id` text NOT NULL,
	`status` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_sealed` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`source_tenant_id`, `target_tenant_id`),
	FOREIGN KEY (`source_tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `federations_target` ON `federations` (`target_tenant_id`);
--> statement-breakpoint
CREATE TABLE `federation_logins` (
	`state_digest` text PRIMARY KEY NOT NULL,
	`target_tenant_id` text NOT NULL,
	`source_tenant_id` text NOT NULL,
	`session_id` text NOT NULL,
	`interaction_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`target_tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `federation_logins_expiry` ON `federation_logins` (`expires_at`);
