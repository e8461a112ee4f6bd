-- Hand-written (issue 28, automations): automations with their versions (a run stays on the
-- version it entered with) and the digest of their API entry's key, runs (each one a row that is
-- its own durable work item: claimed when due, held while its automation is paused), the
-- execution of each step of a run, and the trigger endpoint's idempotency ledger.
CREATE TABLE "automations" (
	"environment_id" text NOT NULL,
	"key" text NOT NULL,
	"id" text NOT NULL,
	"status" text NOT NULL,
	"version" bigint NOT NULL,
	"definition" text NOT NULL,
	"published_version" bigint,
	"api_key_digest" text,
	"configuration_managed" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "automations_environment_id_key_pk" PRIMARY KEY("environment_id","key")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "automations_id" ON "automations" ("id");
--> statement-breakpoint
CREATE UNIQUE INDEX "automations_api_key" ON "automations" ("api_key_digest");
--> statement-breakpoint
CREATE TABLE "automation_versions" (
	"automation_id" text NOT NULL,
	"version" bigint NOT NULL,
	"environment_id" text NOT NULL,
	"definition" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "automation_versions_automation_id_version_pk" PRIMARY KEY("automation_id","version")
);
--> statement-breakpoint
CREATE INDEX "automation_versions_environment" ON "automation_versions" ("environment_id");
--> statement-breakpoint
CREATE TABLE "automation_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"automation_id" text NOT NULL,
	"version" bigint NOT NULL,
	"profile_id" text NOT NULL,
	"status" text NOT NULL,
	"step_id" text,
	"step_seq" bigint DEFAULT 0 NOT NULL,
	"due_ms" bigint,
	"attempts" integer DEFAULT 0 NOT NULL,
	"held" integer DEFAULT 0 NOT NULL,
	"waiting_event" text,
	"context" text NOT NULL,
	"entry" text NOT NULL,
	"error" text,
	"entered_at" text NOT NULL,
	"entered_ms" bigint NOT NULL,
	"ended_at" text,
	"ended_ms" bigint
);
--> statement-breakpoint
CREATE INDEX "automation_runs_due" ON "automation_runs" ("due_ms");
--> statement-breakpoint
CREATE INDEX "automation_runs_profile" ON "automation_runs" ("profile_id","automation_id");
--> statement-breakpoint
CREATE INDEX "automation_runs_automation" ON "automation_runs" ("automation_id","status");
--> statement-breakpoint
CREATE INDEX "automation_runs_environment" ON "automation_runs" ("environment_id");
--> statement-breakpoint
CREATE TABLE "automation_steps" (
	"run_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"environment_id" text NOT NULL,
	"profile_id" text NOT NULL,
	"step_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"started_at" text NOT NULL,
	"finished_at" text,
	"error" text,
	"output" text,
	CONSTRAINT "automation_steps_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE INDEX "automation_steps_environment" ON "automation_steps" ("environment_id");
--> statement-breakpoint
CREATE INDEX "automation_steps_profile" ON "automation_steps" ("profile_id");
--> statement-breakpoint
CREATE TABLE "automation_triggers" (
	"environment_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"access_key_id" text NOT NULL,
	"request_hash" text NOT NULL,
	"response" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "automation_triggers_environment_id_idempotency_key_pk" PRIMARY KEY("environment_id","idempotency_key")
);
