-- Hand-written (drizzle-kit cannot express triggers): the seed row of catalog_version and the
-- triggers that move it on every change to the catalogue (src/db/schema-pg/catalog.ts), as
-- migrations/0001 does on SQLite. Row triggers like SQLite's; each also notifies
-- 'engage_catalog' with the new version, delivered to every listening process at commit
-- (platform/store/postgres-store.ts catalogVersion), and raises a notice to the writer.
INSERT INTO "catalog_version" ("id", "version") VALUES (1, 1) ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  UPDATE "catalog_version" SET "version" = "version" + 1 WHERE "id" = 1 RETURNING "version" INTO v;
  PERFORM pg_notify('engage_catalog', v::text);
  -- To the writing session at once, so its own process moves its version at commit without
  -- waiting for the notification to come back (postgres-store.ts).
  RAISE NOTICE 'engage_catalog_changed';
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "catalog_tenants_change" AFTER INSERT OR UPDATE OR DELETE ON "tenants" FOR EACH ROW EXECUTE FUNCTION engage_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER "catalog_signing_keys_change" AFTER INSERT OR UPDATE OR DELETE ON "signing_keys" FOR EACH ROW EXECUTE FUNCTION engage_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER "catalog_clients_change" AFTER INSERT OR UPDATE OR DELETE ON "clients" FOR EACH ROW EXECUTE FUNCTION engage_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER "catalog_resources_change" AFTER INSERT OR UPDATE OR DELETE ON "resources" FOR EACH ROW EXECUTE FUNCTION engage_catalog_changed();
--> statement-breakpoint
CREATE TRIGGER "catalog_resource_credentials_change" AFTER INSERT OR UPDATE OR DELETE ON "resource_credentials" FOR EACH ROW EXECUTE FUNCTION engage_catalog_changed();
