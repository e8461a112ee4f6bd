-- Hand-written (issue 21): upstream ID tokens accepted by a social sign-in, so that one token
-- signs in once (the replay cache of src/identity/providers). The primary key is the digest, so
-- a second use fails its insert in every process; rows go once the token can no longer be
-- accepted (the providers.purge-token-uses job). WITHOUT ROWID: one B-tree keyed by the digest.
-- The number follows PostgreSQL's 0015 so both engines name this change alike.
CREATE TABLE `upstream_token_uses` (
	`digest` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `upstream_token_uses_expiry` ON `upstream_token_uses` (`expires_at`);
