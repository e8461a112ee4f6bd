-- Hand-written (issue 27, admission of inbox sends): the two expiry indexes hold only entries that
-- expire. Their readers (the expired unread count, the purge) look only for expiry times, so an
-- entry without one was never read through them; a send of a template whose inbox part has no
-- expiry now writes two index entries fewer (the per-owner one a random page of the log).
-- The readers' `expires_ms <= ?` implies the indexes' condition, so both engines still use them
-- (src/engage/inbox/purge.test.ts checks the SQLite plans).
DROP INDEX `inbox_entries_owner_expiry`;
--> statement-breakpoint
CREATE INDEX `inbox_entries_owner_expiry` ON `inbox_entries` (`owner_id`,`expires_ms`) WHERE expires_ms IS NOT NULL;
--> statement-breakpoint
DROP INDEX `inbox_entries_expiry`;
--> statement-breakpoint
CREATE INDEX `inbox_entries_expiry` ON `inbox_entries` (`expires_ms`) WHERE expires_ms IS NOT NULL;
