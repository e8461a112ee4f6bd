ALTER TABLE `grants` ADD `expires_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written: grants from before this migration live until their last refresh token expires,
-- and at least a day (the longest access-token lifetime the configuration allows).
UPDATE `grants` SET `expires_at` = max(`created_at` + 86400, coalesce((SELECT max(r.`expires_at`) FROM `refresh_tokens` r WHERE r.`grant_id` = `grants`.`id`), 0));--> statement-breakpoint
CREATE INDEX `grants_expiry` ON `grants` (`expires_at`);
