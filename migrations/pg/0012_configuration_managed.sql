-- Hand-written (issue 11): what `engage apply` and the control tenant's initialisation own is
-- marked configuration-managed; tenants and clients had the column from 0000.
ALTER TABLE "resources" ADD COLUMN "configuration_managed" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "resource_credentials" ADD COLUMN "configuration_managed" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "directory_permissions" ADD COLUMN "configuration_managed" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "directory_roles" ADD COLUMN "configuration_managed" integer DEFAULT 0 NOT NULL;
