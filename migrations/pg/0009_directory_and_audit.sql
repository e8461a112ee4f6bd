-- Hand-written (issue 11), as migrations/0009 on SQLite: the tenant directory (spec 03), the audit
-- trail, and row 3 of catalog_version, the directory permission version. Each move notifies
-- 'engage_catalog' with '3:<version>' and raises a notice to the writer, like the token state's
-- (0005); statement-level, so a cascade deleting many rows moves it once.
CREATE TABLE "directory_organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"slug" text NOT NULL,
	"display_name" text NOT NULL,
	"status" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory_teams" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"slug" text NOT NULL,
	"display_name" text NOT NULL,
	"status" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory_organization_members" (
	"tenant_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"subject" text NOT NULL,
	"status" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "directory_organization_members_organization_id_subject_pk" PRIMARY KEY("organization_id","subject")
);
--> statement-breakpoint
CREATE TABLE "directory_team_members" (
	"tenant_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"team_id" text NOT NULL,
	"subject" text NOT NULL,
	"status" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "directory_team_members_team_id_subject_pk" PRIMARY KEY("team_id","subject")
);
--> statement-breakpoint
CREATE TABLE "directory_permissions" (
	"tenant_id" text NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"status" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "directory_permissions_tenant_id_key_pk" PRIMARY KEY("tenant_id","key")
);
--> statement-breakpoint
CREATE TABLE "directory_roles" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"scope" text NOT NULL,
	"status" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory_role_permissions" (
	"tenant_id" text NOT NULL,
	"role_id" text NOT NULL,
	"permission_key" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "directory_role_permissions_role_id_permission_key_pk" PRIMARY KEY("role_id","permission_key")
);
--> statement-breakpoint
CREATE TABLE "directory_role_assignments" (
	"tenant_id" text NOT NULL,
	"role_id" text NOT NULL,
	"subject" text NOT NULL,
	"scope" text NOT NULL,
	"organization_id" text,
	"team_id" text,
	"context_id" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "directory_role_assignments_role_id_subject_context_id_pk" PRIMARY KEY("role_id","subject","context_id")
);
--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"actor_subject" text NOT NULL,
	"actor_client_id" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"details" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "directory_organizations" ADD CONSTRAINT "directory_organizations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_teams" ADD CONSTRAINT "directory_teams_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_teams" ADD CONSTRAINT "directory_teams_organization_id_directory_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."directory_organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_organization_members" ADD CONSTRAINT "directory_organization_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_organization_members" ADD CONSTRAINT "directory_organization_members_organization_id_directory_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."directory_organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_team_members" ADD CONSTRAINT "directory_team_members_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_team_members" ADD CONSTRAINT "directory_team_members_organization_id_directory_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."directory_organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_team_members" ADD CONSTRAINT "directory_team_members_team_id_directory_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."directory_teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_permissions" ADD CONSTRAINT "directory_permissions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_roles" ADD CONSTRAINT "directory_roles_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_role_permissions" ADD CONSTRAINT "directory_role_permissions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_role_permissions" ADD CONSTRAINT "directory_role_permissions_role_id_directory_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."directory_roles"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_role_assignments" ADD CONSTRAINT "directory_role_assignments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_role_assignments" ADD CONSTRAINT "directory_role_assignments_role_id_directory_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."directory_roles"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_role_assignments" ADD CONSTRAINT "directory_role_assignments_organization_id_directory_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."directory_organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "directory_role_assignments" ADD CONSTRAINT "directory_role_assignments_team_id_directory_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."directory_teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "directory_organizations_tenant_slug" ON "directory_organizations" USING btree ("tenant_id","slug");
--> statement-breakpoint
CREATE UNIQUE INDEX "directory_teams_organization_slug" ON "directory_teams" USING btree ("organization_id","slug");
--> statement-breakpoint
CREATE INDEX "directory_team_members_organization_subject" ON "directory_team_members" USING btree ("organization_id","subject");
--> statement-breakpoint
CREATE UNIQUE INDEX "directory_roles_tenant_key" ON "directory_roles" USING btree ("tenant_id","key");
--> statement-breakpoint
CREATE INDEX "directory_role_assignments_tenant_subject" ON "directory_role_assignments" USING btree ("tenant_id","subject");
--> statement-breakpoint
CREATE INDEX "audit_events_created" ON "audit_events" USING btree ("created_at","id");
--> statement-breakpoint
CREATE INDEX "audit_events_tenant_created" ON "audit_events" USING btree ("tenant_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "audit_events_action_created" ON "audit_events" USING btree ("action","created_at","id");
--> statement-breakpoint
CREATE INDEX "audit_events_actor_created" ON "audit_events" USING btree ("actor_subject","created_at","id");
--> statement-breakpoint
INSERT INTO "catalog_version" ("id", "version") VALUES (3, 1) ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION engage_directory_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM changed_rows) THEN
    UPDATE "catalog_version" SET "version" = "version" + 1 WHERE "id" = 3 RETURNING "version" INTO v;
    PERFORM pg_notify('engage_catalog', '3:' || v::text);
    RAISE NOTICE 'engage_catalog_changed 3:%', v;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "directory_version_permissions_insert" AFTER INSERT ON "directory_permissions" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_permissions_update" AFTER UPDATE ON "directory_permissions" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_permissions_delete" AFTER DELETE ON "directory_permissions" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_roles_insert" AFTER INSERT ON "directory_roles" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_roles_update" AFTER UPDATE ON "directory_roles" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_roles_delete" AFTER DELETE ON "directory_roles" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_role_permissions_insert" AFTER INSERT ON "directory_role_permissions" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_role_permissions_update" AFTER UPDATE ON "directory_role_permissions" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_role_permissions_delete" AFTER DELETE ON "directory_role_permissions" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_role_assignments_insert" AFTER INSERT ON "directory_role_assignments" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_role_assignments_update" AFTER UPDATE ON "directory_role_assignments" REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
--> statement-breakpoint
CREATE TRIGGER "directory_version_role_assignments_delete" AFTER DELETE ON "directory_role_assignments" REFERENCING OLD TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION engage_directory_version_bump();
