-- Hand-written (issue 12): imported password hashes, the (source, externalId) mapping, and the
-- bulk user import/export jobs with their per-record results.
ALTER TABLE "users" ADD COLUMN "imported_password_hash" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "imported_password_format" text;--> statement-breakpoint
CREATE INDEX "users_tenant_created" ON "users" USING btree ("tenant_id","created_at","id");--> statement-breakpoint
CREATE TABLE "user_import_sources" (
	"tenant_id" text NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "user_import_sources_tenant_id_source_external_id_pk" PRIMARY KEY("tenant_id","source","external_id")
);
--> statement-breakpoint
CREATE TABLE "user_transfer_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"source" text,
	"mode" text,
	"idempotency_key" text,
	"request_digest" text,
	"payload" text,
	"total_items" bigint DEFAULT 0 NOT NULL,
	"processed_items" bigint DEFAULT 0 NOT NULL,
	"succeeded_items" bigint DEFAULT 0 NOT NULL,
	"failed_items" bigint DEFAULT 0 NOT NULL,
	"snapshot_at" text,
	"created_at" text NOT NULL,
	"started_at" text,
	"completed_at" text,
	"last_failure" text
);
--> statement-breakpoint
CREATE TABLE "user_transfer_results" (
	"job_id" text NOT NULL,
	"position" bigint NOT NULL,
	"external_id" text,
	"email" text,
	"status" text NOT NULL,
	"subject" text,
	"error_code" text,
	"processed_at" text NOT NULL,
	CONSTRAINT "user_transfer_results_job_id_position_pk" PRIMARY KEY("job_id","position")
);
--> statement-breakpoint
ALTER TABLE "user_import_sources" ADD CONSTRAINT "user_import_sources_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_import_sources" ADD CONSTRAINT "user_import_sources_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_transfer_jobs" ADD CONSTRAINT "user_transfer_jobs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_transfer_results" ADD CONSTRAINT "user_transfer_results_job_id_user_transfer_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."user_transfer_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "user_import_sources_user" ON "user_import_sources" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_transfer_jobs_idempotency" ON "user_transfer_jobs" USING btree ("tenant_id","kind","idempotency_key");--> statement-breakpoint
CREATE INDEX "user_transfer_jobs_tenant" ON "user_transfer_jobs" USING btree ("tenant_id","kind","created_at");--> statement-breakpoint
CREATE INDEX "user_transfer_jobs_pending" ON "user_transfer_jobs" USING btree ("status","created_at");
