-- Hand-written (issue 22 point 6), as migrations/0025 on SQLite: named version channels replace
-- the three fixed rows of catalog_version (1 the catalogue, 2 the token state, 3 the directory).
-- One function moves a channel, creating its row at the first move: engage_version_bump(name),
-- which notifies 'engage_catalog' with '<name>:<version>' (every listening process, at commit)
-- and raises the notice 'engage_catalog_changed <name>:<version>' to the writing session
-- (platform/store/postgres-store.ts). The trigger functions of 0001/0002, 0005 and 0009 keep
-- their names and triggers and now call it; a channel no trigger moves is moved by the
-- store's versions.bump (platform/store/versions.ts), which calls it too.
CREATE TABLE "version_channels" (
	"name" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "version_channels" ("name", "version")
  SELECT CASE "id" WHEN 1 THEN 'catalog' WHEN 2 THEN 'token_state' ELSE 'directory' END, "version" FROM "catalog_version" WHERE "id" IN (1, 2, 3);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_version_bump(channel text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  INSERT INTO "version_channels" ("name", "version") VALUES (channel, 1)
    ON CONFLICT ("name") DO UPDATE SET "version" = "version_channels"."version" + 1
    RETURNING "version" INTO v;
  PERFORM pg_notify('engage_catalog', channel || ':' || v::text);
  RAISE NOTICE 'engage_catalog_changed %:%', channel, v;
  RETURN v;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM engage_version_bump('catalog');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_token_state_bump() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM engage_version_bump('token_state');
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_directory_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM changed_rows) THEN
    PERFORM engage_version_bump('directory');
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TABLE "catalog_version";
