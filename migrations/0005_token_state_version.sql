-- Hand-written: the token state version (row 2 of catalog_version), which moves with every
-- change that can end a signed access token before it expires: a grant revoked or deleted, an
-- access token revoked, a user disabled, deleted or given another subject or email. Processes
-- cache what introspection and userinfo read about a token while it stands still
-- (src/identity/oauth/introspection.ts). Updates only when the watched columns change.
INSERT INTO `catalog_version` (`id`, `version`) VALUES (2, 1);
--> statement-breakpoint
CREATE TRIGGER `token_state_grants_revoked` AFTER UPDATE OF `revoked_at` ON `grants` WHEN OLD.`revoked_at` IS NOT NEW.`revoked_at` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 2; END;
--> statement-breakpoint
CREATE TRIGGER `token_state_grants_delete` AFTER DELETE ON `grants` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 2; END;
--> statement-breakpoint
CREATE TRIGGER `token_state_access_token_revoked` AFTER INSERT ON `revoked_access_tokens` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 2; END;
--> statement-breakpoint
CREATE TRIGGER `token_state_users_update` AFTER UPDATE OF `status`, `email`, `email_verified`, `subject` ON `users`
  WHEN OLD.`status` IS NOT NEW.`status` OR OLD.`email` IS NOT NEW.`email` OR OLD.`email_verified` IS NOT NEW.`email_verified` OR OLD.`subject` IS NOT NEW.`subject`
  BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 2; END;
--> statement-breakpoint
CREATE TRIGGER `token_state_users_delete` AFTER DELETE ON `users` BEGIN UPDATE `catalog_version` SET `version` = `version` + 1 WHERE `id` = 2; END;
