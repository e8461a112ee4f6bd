-- Hand-written (issue 24 point 1, environments over the engagement administration API): the
-- environment overview counts operations, sends and deliveries of the last hour and day by
-- environment and time, and the environment deletion job finds the rows of an environment by
-- its id in the tables that had no index leading with it.
CREATE INDEX "operations_environment_received" ON "operations" ("environment_id","received_ms");
--> statement-breakpoint
CREATE INDEX "push_sends_environment_created" ON "push_sends" ("environment_id","created_ms");
--> statement-breakpoint
CREATE INDEX "push_deliveries_environment_created" ON "push_deliveries" ("environment_id","created_ms");
--> statement-breakpoint
CREATE INDEX "profiles_environment" ON "profiles" ("environment_id");
--> statement-breakpoint
CREATE INDEX "revoked_installations_environment" ON "revoked_installations" ("environment_id");
--> statement-breakpoint
CREATE INDEX "push_send_recipients_environment" ON "push_send_recipients" ("environment_id");
--> statement-breakpoint
CREATE INDEX "binding_codes_installation" ON "binding_codes" ("installation_id");
