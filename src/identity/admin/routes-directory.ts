import type { Hono } from 'hono';
import { pageOf, type PageRequest } from '../../platform/http/pagination';
import { DateTime, Strict, T, type TSchema } from '../../platform/http/schema';
import type { Services } from '../../services';
import { OrganizationPage, PermissionPage, RoleAssignmentPage, RolePage, SlugParam, TeamPage } from '../directory/schemas';
import { actor, type AdminEnv, type AdminGuard } from './guards';
import { adminDoc, envelope, inTenant, json, PAGED, route, TENANT } from './routing';
import { ADMIN_SCOPES } from './schemas';

/** A tenant's social identity provider (spec 02 native social sign-in; `engage providers`). */
export const ProviderEntry = T.Object({
  name: T.String({ description: 'what clients send as provider (google, apple, …)' }),
  issuer: T.String({ description: "the OpenID Connect issuer, exactly as in its ID tokens' iss" }),
  audiences: T.Array(T.String(), { description: "accepted aud values (the client ids at that issuer)" }),
  createdAt: DateTime(),
});
export const ProviderInput = Strict({
  name: T.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: '1-63 lower-case letters, digits, - or _' }),
  issuer: T.String({ minLength: 1, maxLength: 2048, description: 'an https URL without query or fragment (its discovery document names its keys)' }),
  audiences: T.Array(T.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 20, description: 'accepted aud values, 1 to 20' }),
});
export const ProviderPage = pageOf(ProviderEntry);
const ProviderNameParam = T.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'the provider name' });

/**
 * A tenant's social identity providers (read, add, remove) and its directory objects (read),
 * for operators: the twins of `engage providers` and `engage directory … list`. The directory
 * API itself stays at each tenant's issuer, for the tenant's own directory administrators
 * (spec 03); these reads let an operator see it with a management token (the console, issue 25).
 */
export function mountDirectoryAdminRoutes(admin: Hono<AdminEnv>, guard: AdminGuard, services: Services): void {
  const deps = { services };
  const read = guard(ADMIN_SCOPES.read);
  const manage = guard(ADMIN_SCOPES.manage);

  admin.get('/tenants/:tenantId/providers', read, inTenant(deps), route(
    adminDoc("A page of the tenant's social identity providers, by name", { params: TENANT, ...PAGED, responses: { 200: json(ProviderPage, 'a page of providers') }, errors: { 400: 'invalid_request' } }),
    async (c, { query: q }) => {
      const all = (await services.providers.list(inTenant.of(c).tenant.id)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const from = q.page * q.size;
      return envelope(c, q, { items: all.slice(from, from + q.size), hasMore: all.length > from + q.size });
    },
  ));

  admin.post('/tenants/:tenantId/providers', manage, inTenant(deps), route(
    adminDoc("Accept ID tokens of an OpenID Connect issuer for the tenant's native social sign-in", {
      params: TENANT, body: { schema: ProviderInput }, responses: { 201: json(ProviderEntry, 'the provider') },
      errors: { 400: 'invalid_request (also for an issuer that is not an https URL without query or fragment)', 409: 'provider_conflict' },
    }),
    async (c, { body }) => c.json(await services.providers.add(inTenant.of(c).tenant.id, body, actor(c)), 201),
  ));

  admin.delete('/tenants/:tenantId/providers/:name', manage, inTenant(deps), route(
    adminDoc('Stop accepting a provider (linked identities are kept and work again if it is added back)', {
      params: { ...TENANT, name: ProviderNameParam }, responses: { 204: { description: 'removed' } }, errors: { 400: 'invalid_request', 404: 'unknown_provider' },
    }),
    async (c, { params }) => {
      await services.providers.remove(inTenant.of(c).tenant.id, params.name, actor(c));
      return c.body(null, 204);
    },
  ));

  type Lister = (tenantId: string, p: PageRequest) => Promise<{ items: unknown[]; hasMore: boolean }>;
  const lists: [string, string, TSchema, Lister][] = [
    ['organizations', "A page of the tenant's directory organizations", OrganizationPage, (t, p) => services.directory.organizations(t, p)],
    ['roles', "A page of the tenant's directory roles", RolePage, (t, p) => services.directory.roles(t, p)],
    ['permissions', "A page of the tenant's directory permissions", PermissionPage, (t, p) => services.directory.permissions(t, p)],
    ['role-assignments', "A page of the tenant's directory role assignments", RoleAssignmentPage, (t, p) => services.directory.roleAssignments(t, p)],
  ];
  for (const [path, summary, schema, page] of lists) {
    admin.get(`/tenants/:tenantId/directory/${path}`, read, inTenant(deps), route(
      adminDoc(summary, { params: TENANT, ...PAGED, responses: { 200: json(schema, 'a page') }, errors: { 400: 'invalid_request' } }),
      async (c, { query: q }) => envelope(c, q, await page(inTenant.of(c).tenant.id, q)),
    ));
  }

  admin.get('/tenants/:tenantId/directory/organizations/:organizationSlug/teams', read, inTenant(deps), route(
    adminDoc("A page of an organization's teams", {
      params: { ...TENANT, organizationSlug: SlugParam }, ...PAGED, responses: { 200: json(TeamPage, 'a page of teams') },
      errors: { 400: 'invalid_request', 409: 'directory_operation_rejected (no such organization, as the directory API answers)' },
    }),
    async (c, { params, query: q }) => envelope(c, q, await services.directory.teams(inTenant.of(c).tenant.id, params.organizationSlug, q)),
  ));
}
