-- Hand-written (issue 11 point 3), as migrations/0010 on SQLite: federations between tenants and
-- the brokered sign-ins under way.
CREATE TABLE "federations" (
	"source_tenant_id" text NOT NULL,
	"target_tenant_id" text NOT NULL,
	"status" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_sealed" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "federations_source_tenant_id_target_tenant_id_pk" PRIMARY KEY("source_tenant_id","target_tenant_id")
);
--> statement-breakpoint
CREATE TABLE "federation_logins" (
	"state_digest" text PRIMARY KEY NOT NULL,
	"target_tenant_id" text NOT NULL,
	"source_tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"interaction_id" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "federations" ADD CONSTRAINT "federations_source_tenant_id_tenants_id_fk" FOREIGN KEY ("source_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "federations" ADD CONSTRAINT "federations_target_tenant_id_tenants_id_fk" FOREIGN KEY ("target_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "federation_logins" ADD CONSTRAINT "federation_logins_target_tenant_id_tenants_id_fk" FOREIGN KEY ("target_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "federation_logins" ADD CONSTRAINT "federation_logins_source_tenant_id_tenants_id_fk" FOREIGN KEY ("source_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "federations_target" ON "federations" USING btree ("target_tenant_id");
--> statement-breakpoint
CREATE INDEX "federation_logins_expiry" ON "federation_logins" USING btree ("expires_at");
