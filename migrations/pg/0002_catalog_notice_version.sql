-- Hand-written: the catalogue trigger's notice to the writer now carries the new version, as
-- the notification does, so a process that moved its own version at commit ignores the
-- notification of that same change when it comes back (postgres-store.ts) instead of
-- dropping its catalogue cache a second time.
CREATE OR REPLACE FUNCTION engage_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  UPDATE "catalog_version" SET "version" = "version" + 1 WHERE "id" = 1 RETURNING "version" INTO v;
  PERFORM pg_notify('engage_catalog', v::text);
  RAISE NOTICE 'engage_catalog_changed %', v;
  RETURN NULL;
END
$$;
