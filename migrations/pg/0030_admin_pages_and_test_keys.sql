-- Hand-written (issue 24, after an outside review): installations are paged per environment in
-- id order (the administration API's keyset pages: one index seek per page, whatever the
-- environment's size), and test sends have their own idempotency keys, so a console test send
-- can never take a key a backend's real send will use.
DROP INDEX "installations_environment";
--> statement-breakpoint
CREATE INDEX "installations_environment" ON "installations" USING btree ("environment_id","id");
--> statement-breakpoint
DROP INDEX "push_sends_idempotency";
--> statement-breakpoint
CREATE UNIQUE INDEX "push_sends_idempotency" ON "push_sends" USING btree ("environment_id","is_test","idempotency_key");
