-- Hand-written (issue 23 point 7): device authorization requests (RFC 8628), codes kept as digests.
CREATE TABLE "device_authorizations" (
	"device_code_digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"user_code_digest" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"poll_interval" integer NOT NULL,
	"last_polled_at" bigint,
	"browser_state_digest" text,
	"code_digest" text,
	"user_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD CONSTRAINT "device_authorizations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD CONSTRAINT "device_authorizations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "device_authorizations_user_code" ON "device_authorizations" USING btree ("tenant_id","user_code_digest");
--> statement-breakpoint
CREATE INDEX "device_authorizations_expiry" ON "device_authorizations" USING btree ("expires_at");
