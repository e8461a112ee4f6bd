-- Hand-written (issue 13): the due index holds only PENDING deliveries (see migrations/0014).
DROP INDEX "push_deliveries_due";
--> statement-breakpoint
CREATE INDEX "push_deliveries_pending" ON "push_deliveries" USING btree ("next_attempt_ms") WHERE "state" = 'PENDING';
--> statement-breakpoint
DROP INDEX "push_deliveries_template";
--> statement-breakpoint
CREATE INDEX "push_deliveries_template" ON "push_deliveries" USING btree ("template_id");
