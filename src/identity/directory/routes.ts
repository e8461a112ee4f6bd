import type { Context, Hono, MiddlewareHandler } from 'hono';
import { DomainError } from '../../platform/errors';
import type { RouteDoc } from '../../platform/http/openapi';
import { pageQuery } from '../../platform/http/pagination';
import { withHeaders } from '../../platform/http/request';
import { apiInputRules, declaredRoutes } from '../../platform/http/route';
import type { TSchema } from '../../platform/http/schema';
import { actorOf } from '../audit';
import type { IssuerEnv } from '../issuer';
import type { UserAccessTokenClaims } from '../oauth/tokens';
import { hasScope } from '../oauth/scopes';
import type { ResolvedTenant } from '../tenants/service';
import { createTokenGuards, type TokenEnv, type TokenPrincipal } from '../token-guards';
import { DirectoryErrors } from './errors';
import { DIRECTORY_PERMISSIONS } from './permissions';
import {
  Created, KeyParam, MemberChange, MemberPage, OrganizationCreate, OrganizationPage, PermissionCreate, PermissionPage, RoleAssignmentBody,
  RoleAssignmentPage, RoleCreate, RolePage, RolePermissionAdd, SlugParam, TeamCreate, TeamPage,
} from './schemas';
import type { DirectoryService } from './service';

/** The directory root under an issuer (spec 03); the directory resource's URI and audience is `{issuer}` + this. */
export const DIRECTORY_ROOT = '/identity/directory';
export const directoryUrl = (issuer: string) => `${issuer}${DIRECTORY_ROOT}`;

const { read: READ, manage: MANAGE } = DIRECTORY_PERMISSIONS;
const MAX_BODY = 16 * 1024;

const AUTH_ERRORS = {
  401: 'invalid_token',
  403: "insufficient_scope (WWW-Authenticate names it), access_denied (also for a change of the control tenant's directory: engage operators and engage apply own it)",
  404: 'unknown_tenant',
};

const doc = <const P extends Omit<RouteDoc, 'summary' | 'errors'>>(summary: string, parts: P, errors: Record<number, string>) =>
  ({ summary, tags: ['directory'] as string[], security: ['bearerToken'] as RouteDoc['security'], ...parts, errors: { ...AUTH_ERRORS, ...errors } });
const NONE = {} as const;
const list = <const Q extends Record<string, TSchema>>(summary: string, schema: TSchema, params: Q, conflict?: string) =>
  doc(summary, { params, query: pageQuery, responses: { 200: { description: 'a page', schema } } }, conflict ? { 400: 'invalid_request (pagination or path value)', 409: conflict } : { 400: 'invalid_request (pagination)' });
const REJECTED = 'directory_operation_rejected (a duplicate or a missing dependency)';
/** Issue 21: a role `engage apply` owns keeps its permissions as the file declares them. */
const MANAGED = 'configuration_managed (the role is owned by engage apply)';
const write = <const B extends TSchema, const Q extends Record<string, TSchema>>(summary: string, body: B, params: Q, status: 201 | 204, created?: TSchema, conflict = REJECTED) =>
  doc(
    summary,
    { params, body: { schema: body }, responses: { [status]: created ? { description: 'created', schema: created } : { description: 'empty body' } } },
    { 400: 'invalid_request (JSON shape, slug, key, subject, scope context or path value)', 409: conflict },
  );

const ORG = { organizationSlug: SlugParam };
const TEAM = { organizationSlug: SlugParam, teamSlug: SlugParam };
const ROLE = { roleKey: KeyParam };

/**
 * The api family's declarations (issue 22 point 4): path values, the page query and the body are
 * checked by the route's documented schemas before the handler, every violation named in one
 * invalid_request. Organizations, teams, members and assignments are checked here only (the
 * service takes them typed; the CLI's assignments go through `roleAssignmentInput`, the same
 * schema); permissions and roles keep the service's check, shared with `engage apply`.
 */
const route = declaredRoutes<TokenEnv>(
  apiInputRules({
    maxBytes: MAX_BODY,
    body: (f) => DirectoryErrors.invalid(f.kind === 'too_large' ? `body: larger than ${f.limit} bytes` : `${f.field}: ${f.reason}`),
    invalid: DirectoryErrors.invalid,
  }),
);

/**
 * The tenant directory API (spec 03 "Directory API"), under `{issuer}/identity/directory` in the
 * api family. Every request needs a live access token of the request's tenant whose `aud` is the
 * complete directory root URL; reads need the scope `directory.read` or `directory.manage` and
 * the same live permission, mutations `directory.manage` (docs/decisions.md "Directory API").
 */
export function mountDirectoryRoutes(
  app: Hono<IssuerEnv>,
  deps: { directory: DirectoryService; liveAccessToken: (tenant: ResolvedTenant, token: string) => Promise<UserAccessTokenClaims | undefined> },
): void {
  const { directory } = deps;
  const has = (p: TokenPrincipal, key: string) => directory.hasPermission(p.tenantId, p.subject, key);
  const guards = createTokenGuards({ liveAccessToken: deps.liveAccessToken, hasPermission: has });
  const audience = (t: ResolvedTenant) => directoryUrl(t.issuer);
  const token = guards.bearerToken({ audience, scopes: [] });
  /** The control tenant's directory is read here, never changed (DirectoryErrors.controlTenant). */
  const notControl: MiddlewareHandler<TokenEnv> = async (c, next) => {
    if (c.get('tenant').tenant.isControl) throw DirectoryErrors.controlTenant();
    await next();
  };
  const manage = [guards.bearerToken({ audience, scopes: [MANAGE] }), guards.permission(MANAGE), notControl] as const;
  /** A read: either scope, and either live permission (`manage` implies read, spec 03). */
  const readAccess: MiddlewareHandler<TokenEnv> = async (c, next) => {
    const p = c.get('principal');
    if (!hasScope(p.scope, READ) && !hasScope(p.scope, MANAGE))
      throw new DomainError('forbidden', 'insufficient_scope', `scope ${READ} is required`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${READ}"` });
    if (!(await has(p, READ)) && !(await has(p, MANAGE))) throw new DomainError('forbidden', 'access_denied', `permission ${READ} is required`);
    await next();
  };
  const read = [token, readAccess] as const;
  const tenantOf = (c: Context<TokenEnv>) => c.get('principal').tenantId;
  const actor = (c: Context<TokenEnv>) => actorOf(c.get('principal'));
  const created = (c: Context, id: { id: string }) => c.json(id, 201);
  const empty = (c: Context, status: 201 | 204) => c.body(null, status);
  const r = app as unknown as Hono<TokenEnv>;
  const P = DIRECTORY_ROOT;

  r.use(`${P}/*`, withHeaders({ 'Cache-Control': 'no-store' }));

  r.get(`${P}/organizations`, ...read, route(list('List organizations', OrganizationPage, NONE), async (c, { query }) => c.json(await directory.organizations(tenantOf(c), query))));
  r.post(`${P}/organizations`, ...manage, route(write('Create an organization', OrganizationCreate, NONE, 201, Created), async (c, { body }) =>
    created(c, await directory.createOrganization(tenantOf(c), body, actor(c)))));

  r.get(`${P}/organizations/:organizationSlug/teams`, ...read, route(list('List the teams of an organization', TeamPage, ORG, 'directory_operation_rejected (no such organization)'), async (c, { params, query }) =>
    c.json(await directory.teams(tenantOf(c), params.organizationSlug, query))));
  r.post(`${P}/organizations/:organizationSlug/teams`, ...manage, route(write('Create a team in an organization', TeamCreate, ORG, 201, Created), async (c, { params, body }) =>
    created(c, await directory.createTeam(tenantOf(c), params.organizationSlug, body, actor(c)))));

  r.get(`${P}/organizations/:organizationSlug/members`, ...read, route(list('List the members of an organization', MemberPage, ORG, 'directory_operation_rejected (no such organization)'), async (c, { params, query }) =>
    c.json(await directory.organizationMembers(tenantOf(c), params.organizationSlug, query))));
  r.post(`${P}/organizations/:organizationSlug/members`, ...manage, route(write('Add a user of the tenant to an organization', MemberChange, ORG, 204), async (c, { params, body }) => {
    await directory.addOrganizationMember(tenantOf(c), params.organizationSlug, body, actor(c));
    return empty(c, 204);
  }));
  r.post(`${P}/organizations/:organizationSlug/members/removals`, ...manage, route(
    write('Remove an organization member, with the team memberships and the ORGANIZATION and TEAM assignments that depend on it', MemberChange, ORG, 204), async (c, { params, body }) => {
      await directory.removeOrganizationMember(tenantOf(c), params.organizationSlug, body, actor(c));
      return empty(c, 204);
    }));

  r.get(`${P}/organizations/:organizationSlug/teams/:teamSlug/members`, ...read, route(list('List the members of a team', MemberPage, TEAM, 'directory_operation_rejected (no such organization or team)'), async (c, { params, query }) =>
    c.json(await directory.teamMembers(tenantOf(c), params.organizationSlug, params.teamSlug, query))));
  r.post(`${P}/organizations/:organizationSlug/teams/:teamSlug/members`, ...manage, route(write('Add an organization member to a team', MemberChange, TEAM, 204), async (c, { params, body }) => {
    await directory.addTeamMember(tenantOf(c), params.organizationSlug, params.teamSlug, body, actor(c));
    return empty(c, 204);
  }));
  r.post(`${P}/organizations/:organizationSlug/teams/:teamSlug/members/removals`, ...manage, route(
    write('Remove a team member, with the TEAM assignments that depend on it', MemberChange, TEAM, 204), async (c, { params, body }) => {
      await directory.removeTeamMember(tenantOf(c), params.organizationSlug, params.teamSlug, body, actor(c));
      return empty(c, 204);
    }));

  r.get(`${P}/permissions`, ...read, route(list('List permissions', PermissionPage, NONE), async (c, { query }) => c.json(await directory.permissions(tenantOf(c), query))));
  r.post(`${P}/permissions`, ...manage, route(write('Create a permission', PermissionCreate, NONE, 201), async (c, { body }) => {
    await directory.createPermission(tenantOf(c), body, actor(c));
    return empty(c, 201);
  }));

  r.get(`${P}/roles`, ...read, route(list('List roles', RolePage, NONE), async (c, { query }) => c.json(await directory.roles(tenantOf(c), query))));
  r.post(`${P}/roles`, ...manage, route(write('Create a role', RoleCreate, NONE, 201, Created), async (c, { body }) => created(c, await directory.createRole(tenantOf(c), body, actor(c)))));

  r.get(`${P}/roles/:roleKey/permissions`, ...read, route(list('List the permissions of a role', PermissionPage, ROLE, 'directory_operation_rejected (no such role)'), async (c, { params, query }) =>
    c.json(await directory.rolePermissions(tenantOf(c), params.roleKey, query))));
  r.post(`${P}/roles/:roleKey/permissions`, ...manage, route(write('Add a permission to a role', RolePermissionAdd, ROLE, 204, undefined, `${REJECTED}, ${MANAGED}`), async (c, { params, body }) => {
    await directory.addRolePermission(tenantOf(c), params.roleKey, body, actor(c));
    return empty(c, 204);
  }));
  r.delete(`${P}/roles/:roleKey/permissions/:permissionKey`, ...manage, route(
    doc('Remove a permission from a role', { params: { roleKey: KeyParam, permissionKey: KeyParam }, responses: { 204: { description: 'empty body' } } }, {
      400: 'invalid_request (path value)', 409: `directory_operation_rejected (no such role, or the role does not hold the permission), ${MANAGED}`,
    }),
    async (c, { params }) => {
      await directory.removeRolePermission(tenantOf(c), params.roleKey, params.permissionKey, actor(c));
      return empty(c, 204);
    },
  ));

  r.get(`${P}/role-assignments`, ...read, route(list('List role assignments', RoleAssignmentPage, NONE), async (c, { query }) => c.json(await directory.roleAssignments(tenantOf(c), query))));
  r.post(`${P}/role-assignments`, ...manage, route(write('Assign a role in a TENANT, ORGANIZATION or TEAM context', RoleAssignmentBody, NONE, 204), async (c, { body }) => {
    await directory.assignRole(tenantOf(c), body, actor(c));
    return empty(c, 204);
  }));
  r.post(`${P}/role-assignments/revocations`, ...manage, route(write('Revoke a role assignment (the same body as the assignment)', RoleAssignmentBody, NONE, 204), async (c, { body }) => {
    await directory.revokeRole(tenantOf(c), body, actor(c));
    return empty(c, 204);
  }));
}
