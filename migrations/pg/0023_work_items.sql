-- Hand-written (issue 22 point 2): the durable work items of platform/work (see migrations/0023).
CREATE TABLE "work_items" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"due_ms" bigint NOT NULL,
	"last_error" text,
	"created_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "work_items_due" ON "work_items" USING btree ("status","due_ms");
