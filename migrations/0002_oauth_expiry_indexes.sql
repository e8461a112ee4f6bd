CREATE INDEX `authorization_codes_expiry` ON `authorization_codes` (`expires_at`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_expiry` ON `refresh_tokens` (`expires_at`);--> statement-breakpoint
CREATE INDEX `revoked_access_tokens_expiry` ON `revoked_access_tokens` (`expires_at`);