-- Hand-written (issue 26, remote-state sync): the definitions of the sync modules (feature flags
-- with their versions, scheduled changes, exposures and sticky assignments; subscription lists;
-- push channels and categories), the per-environment definitions revision that orders their
-- commits (engage/definitions: one counter row, bumped under its lock in each writing
-- transaction, so revisions follow commit order), and the sync revisions of installations and
-- profiles (bumped by profile state with each change of what a document is derived from).
CREATE TABLE "sync_environments" (
	"environment_id" text PRIMARY KEY NOT NULL,
	"revision" bigint DEFAULT 0 NOT NULL,
	"horizon" bigint DEFAULT 0 NOT NULL,
	"refresh_after_seconds" integer DEFAULT 900 NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "sync_environments_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE TABLE "flags" (
	"environment_id" text NOT NULL,
	"key" text NOT NULL,
	"status" text NOT NULL,
	"version" bigint NOT NULL,
	"revision" bigint NOT NULL,
	"definition" text NOT NULL,
	"configuration_managed" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "flags_environment_id_key_pk" PRIMARY KEY("environment_id","key")
);
--> statement-breakpoint
CREATE INDEX "flags_revision" ON "flags" ("environment_id","revision");
--> statement-breakpoint
CREATE TABLE "flag_versions" (
	"environment_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"version" bigint NOT NULL,
	"definition" text NOT NULL,
	"origin" text NOT NULL,
	"actor" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "flag_versions_environment_id_flag_key_version_pk" PRIMARY KEY("environment_id","flag_key","version")
);
--> statement-breakpoint
CREATE TABLE "flag_schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"due_ms" bigint NOT NULL,
	"definition" text NOT NULL,
	"status" text NOT NULL,
	"actor" text NOT NULL,
	"created_at" text NOT NULL,
	"applied_version" bigint,
	"applied_at" text
);
--> statement-breakpoint
CREATE INDEX "flag_schedules_flag" ON "flag_schedules" ("environment_id","flag_key","due_ms");
--> statement-breakpoint
CREATE INDEX "flag_schedules_due" ON "flag_schedules" ("status","due_ms");
--> statement-breakpoint
CREATE TABLE "flag_exposures" (
	"environment_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"experiment_id" text NOT NULL,
	"revision" bigint NOT NULL,
	"installation_id" text NOT NULL,
	"variant_key" text NOT NULL,
	"exposed_ms" bigint NOT NULL,
	CONSTRAINT "flag_exposures_pk" PRIMARY KEY("environment_id","flag_key","experiment_id","revision","installation_id")
);
--> statement-breakpoint
CREATE INDEX "flag_exposures_installation" ON "flag_exposures" ("installation_id");
--> statement-breakpoint
CREATE TABLE "flag_sticky_assignments" (
	"installation_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"environment_id" text NOT NULL,
	"experiment_id" text DEFAULT '' NOT NULL,
	"variant_key" text NOT NULL,
	"assigned_ms" bigint NOT NULL,
	CONSTRAINT "flag_sticky_assignments_installation_id_flag_key_pk" PRIMARY KEY("installation_id","flag_key")
);
--> statement-breakpoint
CREATE INDEX "flag_sticky_assignments_environment" ON "flag_sticky_assignments" ("environment_id");
--> statement-breakpoint
CREATE TABLE "subscription_lists" (
	"environment_id" text NOT NULL,
	"key" text NOT NULL,
	"revision" bigint NOT NULL,
	"deleted" integer DEFAULT 0 NOT NULL,
	"definition" text NOT NULL,
	"configuration_managed" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "subscription_lists_environment_id_key_pk" PRIMARY KEY("environment_id","key")
);
--> statement-breakpoint
CREATE INDEX "subscription_lists_revision" ON "subscription_lists" ("environment_id","revision");
--> statement-breakpoint
CREATE TABLE "push_channels" (
	"environment_id" text NOT NULL,
	"app_id" text NOT NULL,
	"key" text NOT NULL,
	"revision" bigint NOT NULL,
	"deleted" integer DEFAULT 0 NOT NULL,
	"definition" text NOT NULL,
	"configuration_managed" integer DEFAULT 0 NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "push_channels_app_id_key_pk" PRIMARY KEY("app_id","key")
);
--> statement-breakpoint
CREATE INDEX "push_channels_revision" ON "push_channels" ("environment_id","revision");
--> statement-breakpoint
ALTER TABLE "installations" ADD COLUMN "sync_revision" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "sync_revision" bigint DEFAULT 0 NOT NULL;
