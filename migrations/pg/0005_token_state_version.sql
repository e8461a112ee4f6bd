-- Hand-written: the token state version (row 2 of catalog_version), as migrations/0005 does on
-- SQLite: it moves with every change that can end a signed access token before it expires (a
-- grant revoked or deleted, an access token revoked, a user disabled, deleted or given another
-- subject or email). Each move notifies 'engage_catalog' with '2:<version>' and raises a notice
-- to the writer, like the catalogue's (postgres-store.ts). Deletions and insertions fire once
-- per statement that touched rows (a purge deleting thousands of grants moves it once).
INSERT INTO "catalog_version" ("id", "version") VALUES (2, 1) ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_token_state_bump() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  UPDATE "catalog_version" SET "version" = "version" + 1 WHERE "id" = 2 RETURNING "version" INTO v;
  PERFORM pg_notify('engage_catalog', '2:' || v::text);
  RAISE NOTICE 'engage_catalog_changed 2:%', v;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_token_state_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM engage_token_state_bump();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_token_state_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM changed_rows) THEN
    PERFORM engage_token_state_bump();
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "token_state_grants_revoked" AFTER UPDATE OF "revoked_at" ON "grants" FOR EACH ROW
  WHEN (OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at") EXECUTE FUNCTION engage_token_state_row_changed();
--> statement-breakpoint
CREATE TRIGGER "token_state_grants_delete" AFTER DELETE ON "grants" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_token_state_rows_changed();
--> statement-breakpoint
CREATE TRIGGER "token_state_access_token_revoked" AFTER INSERT ON "revoked_access_tokens" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_token_state_rows_changed();
--> statement-breakpoint
CREATE TRIGGER "token_state_users_update" AFTER UPDATE OF "status", "email", "email_verified", "subject" ON "users" FOR EACH ROW
  WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."email" IS DISTINCT FROM NEW."email"
    OR OLD."email_verified" IS DISTINCT FROM NEW."email_verified" OR OLD."subject" IS DISTINCT FROM NEW."subject")
  EXECUTE FUNCTION engage_token_state_row_changed();
--> statement-breakpoint
CREATE TRIGGER "token_state_users_delete" AFTER DELETE ON "users" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_token_state_rows_changed();
