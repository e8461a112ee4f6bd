-- Hand-written (issue 24, sign-in that binds the installation): an environment may name the identity
-- tenant whose user subjects are its external ids (cleared when the tenant is deleted), and an
-- authorization code keeps the digest of the installation binding code its sign-in carried.
ALTER TABLE "environments" ADD COLUMN "identity_tenant_id" text;
--> statement-breakpoint
ALTER TABLE "environments" ADD CONSTRAINT "environments_identity_tenant_id_tenants_id_fk" FOREIGN KEY ("identity_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "authorization_codes" ADD COLUMN "binding_code_digest" text;
