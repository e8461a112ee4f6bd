import type { Hono } from 'hono';
import { pageOf, type PageRequest } from '../../platform/http/pagination';
import { DateTime, Strict, T, type TSchema } from '../../platform/http/schema';
import type { Services } from '../../services';
import type { MiddlewareHandler } from 'hono';
import {
  Created, KeyParam, MemberChange, MemberPage, OrganizationCreate, OrganizationPage, PermissionCreate, PermissionPage, RoleAssignmentBody, RoleAssignmentPage,
  RoleCreate, RolePage, RolePermissionAdd, SlugParam, TeamCreate, TeamPage,
} from '../directory/schemas';
import { DirectoryErrors } from '../directory/errors';
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
 * A tenant's social identity providers (read, add, remove) and its directory objects (read and
 * change), for operators: the twins of `engage providers` and of the directory API. The directory
 * API itself stays at each tenant's issuer, for the tenant's own directory administrators
 * (spec 03); these let an operator see and change it with a management token (the console,
 * issue 25), through the same service methods and schemas, audited alike. The control tenant's
 * directory is only read here.
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

  // --- writes (issue 25): the directory API's, through the SAME service methods and schemas ---
  /**
   * The control tenant's directory is the operators' permissions: changed only by `engage
   * operators grant|revoke` and `engage apply`, which keep the rank rule of issue 21. A write
   * here is 403 access_denied (docs/decisions.md "Directory writes in the management API").
   */
  const notControl: MiddlewareHandler<AdminEnv> = async (c, next) => {
    if (inTenant.of(c).tenant.isControl) throw DirectoryErrors.controlTenant();
    await next();
  };
  const change = [manage, inTenant(deps), notControl] as const;
  const ORG = { ...TENANT, organizationSlug: SlugParam };
  const TEAM = { ...ORG, teamSlug: SlugParam };
  const ROLE = { ...TENANT, roleKey: KeyParam };
  const CONTROL = "access_denied (also for the control tenant: its roles and assignments are the operators' permissions, changed by engage operators grant|revoke and engage apply)";
  const REJECTED = 'directory_operation_rejected (a duplicate or a missing dependency, as the directory API answers)';
  const MANAGED = 'configuration_managed (the role is owned by engage apply)';
  const writeDoc = <const Q extends Record<string, TSchema>, const B extends TSchema>(summary: string, params: Q, body: B, status: 201 | 204, created?: TSchema, conflict = REJECTED) =>
    adminDoc(summary, {
      params, body: { schema: body }, responses: { [status]: created ? json(created, 'created') : { description: 'empty body' } },
      errors: { 400: 'invalid_request (JSON shape, slug, key, subject, scope context or path value)', 403: CONTROL, 409: conflict },
    });
  const tid = (c: Parameters<typeof inTenant.of>[0]) => inTenant.of(c).tenant.id;

  admin.post('/tenants/:tenantId/directory/organizations', ...change, route(writeDoc('Create a directory organization in the tenant', TENANT, OrganizationCreate, 201, Created), async (c, { body }) =>
    c.json(await services.directory.createOrganization(tid(c), body, actor(c)), 201)));
  admin.post('/tenants/:tenantId/directory/organizations/:organizationSlug/teams', ...change, route(writeDoc('Create a team in an organization', ORG, TeamCreate, 201, Created), async (c, { params, body }) =>
    c.json(await services.directory.createTeam(tid(c), params.organizationSlug, body, actor(c)), 201)));

  const members = <const Q extends Record<string, TSchema>>(summary: string, params: Q, what: string) =>
    adminDoc(summary, { params, ...PAGED, responses: { 200: json(MemberPage, 'a page of members') }, errors: { 400: 'invalid_request', 409: `directory_operation_rejected (no such ${what})` } });
  admin.get('/tenants/:tenantId/directory/organizations/:organizationSlug/members', read, inTenant(deps), route(members("A page of an organization's members", ORG, 'organization'), async (c, { params, query: q }) =>
    envelope(c, q, await services.directory.organizationMembers(tid(c), params.organizationSlug, q))));
  admin.post('/tenants/:tenantId/directory/organizations/:organizationSlug/members', ...change, route(writeDoc('Add a user of the tenant to an organization', ORG, MemberChange, 204), async (c, { params, body }) => {
    await services.directory.addOrganizationMember(tid(c), params.organizationSlug, body, actor(c));
    return c.body(null, 204);
  }));
  admin.post('/tenants/:tenantId/directory/organizations/:organizationSlug/members/removals', ...change, route(
    writeDoc('Remove an organization member, with the team memberships and the ORGANIZATION and TEAM assignments that depend on it', ORG, MemberChange, 204), async (c, { params, body }) => {
      await services.directory.removeOrganizationMember(tid(c), params.organizationSlug, body, actor(c));
      return c.body(null, 204);
    }));
  admin.get('/tenants/:tenantId/directory/organizations/:organizationSlug/teams/:teamSlug/members', read, inTenant(deps), route(members("A page of a team's members", TEAM, 'organization or team'), async (c, { params, query: q }) =>
    envelope(c, q, await services.directory.teamMembers(tid(c), params.organizationSlug, params.teamSlug, q))));
  admin.post('/tenants/:tenantId/directory/organizations/:organizationSlug/teams/:teamSlug/members', ...change, route(writeDoc('Add an organization member to a team', TEAM, MemberChange, 204), async (c, { params, body }) => {
    await services.directory.addTeamMember(tid(c), params.organizationSlug, params.teamSlug, body, actor(c));
    return c.body(null, 204);
  }));
  admin.post('/tenants/:tenantId/directory/organizations/:organizationSlug/teams/:teamSlug/members/removals', ...change, route(
    writeDoc('Remove a team member, with the TEAM assignments that depend on it', TEAM, MemberChange, 204), async (c, { params, body }) => {
      await services.directory.removeTeamMember(tid(c), params.organizationSlug, params.teamSlug, body, actor(c));
      return c.body(null, 204);
    }));

  admin.post('/tenants/:tenantId/directory/permissions', ...change, route(writeDoc('Create a directory permission', TENANT, PermissionCreate, 201), async (c, { body }) => {
    await services.directory.createPermission(tid(c), body, actor(c));
    return c.body(null, 201);
  }));
  admin.post('/tenants/:tenantId/directory/roles', ...change, route(writeDoc('Create a directory role', TENANT, RoleCreate, 201, Created), async (c, { body }) =>
    c.json(await services.directory.createRole(tid(c), body, actor(c)), 201)));
  admin.get('/tenants/:tenantId/directory/roles/:roleKey/permissions', read, inTenant(deps), route(
    adminDoc('A page of the permissions a role holds', { params: ROLE, ...PAGED, responses: { 200: json(PermissionPage, 'a page of permissions') }, errors: { 400: 'invalid_request', 409: 'directory_operation_rejected (no such role)' } }),
    async (c, { params, query: q }) => envelope(c, q, await services.directory.rolePermissions(tid(c), params.roleKey, q)),
  ));
  admin.post('/tenants/:tenantId/directory/roles/:roleKey/permissions', ...change, route(writeDoc('Add a permission to a role', ROLE, RolePermissionAdd, 204, undefined, `${REJECTED}, ${MANAGED}`), async (c, { params, body }) => {
    await services.directory.addRolePermission(tid(c), params.roleKey, body, actor(c));
    return c.body(null, 204);
  }));
  admin.delete('/tenants/:tenantId/directory/roles/:roleKey/permissions/:permissionKey', ...change, route(
    adminDoc('Remove a permission from a role', {
      params: { ...ROLE, permissionKey: KeyParam }, responses: { 204: { description: 'empty body' } },
      errors: { 400: 'invalid_request (path value)', 403: CONTROL, 409: `directory_operation_rejected (no such role, or the role does not hold the permission), ${MANAGED}` },
    }),
    async (c, { params }) => {
      await services.directory.removeRolePermission(tid(c), params.roleKey, params.permissionKey, actor(c));
      return c.body(null, 204);
    },
  ));
  // Deletions: the management API's only (spec 03's directory API has none); what depends on the object goes with it.
  const deleteDoc = <const Q extends Record<string, TSchema>>(summary: string, params: Q, conflict: string) =>
    adminDoc(summary, { params, responses: { 204: { description: 'deleted' } }, errors: { 400: 'invalid_request (path value)', 403: CONTROL, 409: conflict } });
  admin.delete('/tenants/:tenantId/directory/organizations/:organizationSlug', ...change, route(
    deleteDoc('Delete an organization, with its teams, memberships and the role assignments in it', ORG, 'directory_operation_rejected (no such organization)'), async (c, { params }) => {
      await services.directory.deleteOrganization(tid(c), params.organizationSlug, actor(c));
      return c.body(null, 204);
    }));
  admin.delete('/tenants/:tenantId/directory/organizations/:organizationSlug/teams/:teamSlug', ...change, route(
    deleteDoc('Delete a team, with its memberships and the TEAM role assignments in it', TEAM, 'directory_operation_rejected (no such organization or team)'), async (c, { params }) => {
      await services.directory.deleteTeam(tid(c), params.organizationSlug, params.teamSlug, actor(c));
      return c.body(null, 204);
    }));
  admin.delete('/tenants/:tenantId/directory/roles/:roleKey', ...change, route(
    deleteDoc('Delete a role, with its permissions and assignments', ROLE, `directory_operation_rejected (no such role), ${MANAGED}`), async (c, { params }) => {
      await services.directory.deleteRole(tid(c), params.roleKey, actor(c));
      return c.body(null, 204);
    }));
  admin.delete('/tenants/:tenantId/directory/permissions/:permissionKey', ...change, route(
    deleteDoc('Delete a permission, taking it from every role holding it', { ...TENANT, permissionKey: KeyParam }, 'directory_operation_rejected (no such permission), configuration_managed (the permission is owned by engage apply)'),
    async (c, { params }) => {
      await services.directory.deletePermission(tid(c), params.permissionKey, actor(c));
      return c.body(null, 204);
    },
  ));

  admin.post('/tenants/:tenantId/directory/role-assignments', ...change, route(writeDoc('Assign a role in a TENANT, ORGANIZATION or TEAM context', TENANT, RoleAssignmentBody, 204), async (c, { body }) => {
    await services.directory.assignRole(tid(c), body, actor(c));
    return c.body(null, 204);
  }));
  admin.post('/tenants/:tenantId/directory/role-assignments/revocations', ...change, route(
    writeDoc('Revoke a role assignment (the same body as the assignment)', TENANT, RoleAssignmentBody, 204), async (c, { body }) => {
      await services.directory.revokeRole(tid(c), body, actor(c));
      return c.body(null, 204);
    }));
}
