-- Grants, authorization codes and refresh tokens lose their foreign keys to tenants: each made
-- every insert lock the tenant's row (FOR KEY SHARE), so all of a tenant's token writes, from
-- every process, contended on one row (MultiXacts). They still go with their tenant: codes and
-- grants through users (ON DELETE CASCADE from tenants), refresh tokens through grants.
ALTER TABLE "authorization_codes" DROP CONSTRAINT "authorization_codes_tenant_id_tenants_id_fk";--> statement-breakpoint
ALTER TABLE "grants" DROP CONSTRAINT "grants_tenant_id_tenants_id_fk";--> statement-breakpoint
ALTER TABLE "refresh_tokens" DROP CONSTRAINT "refresh_tokens_tenant_id_tenants_id_fk";
