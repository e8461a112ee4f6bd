CREATE TABLE "native_interactions" (
	"id_digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"request" text NOT NULL,
	"flow" text,
	"state" text DEFAULT 'OPEN' NOT NULL,
	"user_id" text,
	"auth_time" bigint,
	"challenge_digest" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "native_challenges" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"interaction_digest" text NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"user_id" text,
	"code_digest" text NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"resend_after" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"consumed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "native_grants" (
	"grant_digest" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"interaction_digest" text NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"user_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"consumed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"purpose" text NOT NULL,
	"message" text NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"last_error" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "native_interactions" ADD CONSTRAINT "native_interactions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "native_challenges" ADD CONSTRAINT "native_challenges_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "native_grants" ADD CONSTRAINT "native_grants_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "native_interactions_expiry" ON "native_interactions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "native_challenges_address" ON "native_challenges" USING btree ("tenant_id","purpose","email");--> statement-breakpoint
CREATE INDEX "native_challenges_expiry" ON "native_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "native_grants_expiry" ON "native_grants" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "mail_outbox_due" ON "mail_outbox" USING btree ("status","next_attempt_at");
