-- Hand-written (issue 27, the inbox): entries, one row each, owned by a profile (scope PROFILE:
-- every installation bound to it sees it) or an installation (scope INSTALLATION); the owner's
-- counters (entries numbered in commit order under the owner's row lock, the read-all watermark
-- and its version, the unread count kept exact); inbox operation batches and operation ids, for
-- idempotent replays.
CREATE TABLE "inbox_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"scope" text NOT NULL,
	"owner_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"key" text NOT NULL,
	"send_id" text,
	"template_id" text,
	"content" text NOT NULL,
	"sent_at" text NOT NULL,
	"sent_ms" bigint NOT NULL,
	"expires_ms" bigint,
	"deleted" integer DEFAULT 0 NOT NULL,
	"read_state" text,
	"read_version" bigint DEFAULT 0 NOT NULL,
	"read_ms" bigint
);
--> statement-breakpoint
CREATE INDEX "inbox_entries_owner" ON "inbox_entries" ("owner_id","sent_ms","id");
--> statement-breakpoint
CREATE INDEX "inbox_entries_owner_expiry" ON "inbox_entries" ("owner_id","expires_ms");
--> statement-breakpoint
CREATE INDEX "inbox_entries_expiry" ON "inbox_entries" ("expires_ms");
--> statement-breakpoint
CREATE INDEX "inbox_entries_environment" ON "inbox_entries" ("environment_id");
--> statement-breakpoint
CREATE TABLE "inbox_owners" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"scope" text NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"watermark_seq" bigint DEFAULT 0 NOT NULL,
	"watermark_version" bigint DEFAULT 0 NOT NULL,
	"unread" bigint DEFAULT 0 NOT NULL,
	"watermark_at" text
);
--> statement-breakpoint
CREATE INDEX "inbox_owners_environment" ON "inbox_owners" ("environment_id");
--> statement-breakpoint
CREATE TABLE "inbox_batches" (
	"installation_id" text NOT NULL,
	"batch_id" text NOT NULL,
	"environment_id" text NOT NULL,
	"result" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "inbox_batches_installation_id_batch_id_pk" PRIMARY KEY("installation_id","batch_id")
);
--> statement-breakpoint
CREATE INDEX "inbox_batches_environment" ON "inbox_batches" ("environment_id");
--> statement-breakpoint
CREATE TABLE "inbox_operations" (
	"installation_id" text NOT NULL,
	"operation_id" text NOT NULL,
	"environment_id" text NOT NULL,
	"status" text NOT NULL,
	CONSTRAINT "inbox_operations_installation_id_operation_id_pk" PRIMARY KEY("installation_id","operation_id")
);
--> statement-breakpoint
CREATE INDEX "inbox_operations_environment" ON "inbox_operations" ("environment_id");
