import type { Context, Hono } from 'hono';
import { pageQuery } from '../../platform/http/pagination';
import { DateTime, parseDateTime, T } from '../../platform/http/schema';
import { AdminErrors } from './errors';
import { checkPasswordPolicy } from '../users/service';
import { actor, type AdminEnv, type AdminGuard } from './guards';
import { withinRank } from './operator-rank';
import { adminDoc, envelope, inTenant, json, PAGED, route, TENANT, type AdminDeps } from './routing';
import {
  ADMIN_SCOPES, AdminPasswordSet, AdminUserCreate, AuditEventPage, Overview, SecondFactorStatus, Tenant, TenantCreate, TenantIdParam, TenantPage, TenantUpdate, User, UserIdParam, UserPage, UserUpdate,
} from './schemas';

export function mountTenantRoutes(admin: Hono<AdminEnv>, guard: AdminGuard, deps: AdminDeps): void {
  const { services } = deps;
  const read = guard(ADMIN_SCOPES.read);
  const manage = guard(ADMIN_SCOPES.manage);
  const users = guard(ADMIN_SCOPES.usersManage);
  /** A change of a control-tenant user needs every permission they hold (operator-rank.ts). */
  const rank = (c: Context<AdminEnv>) => ({ authorize: withinRank(services.directory, c.get('principal')) });

  admin.get('/overview', read, route(
    adminDoc('Totals of the environment', { responses: { 200: json(Overview, 'the overview') } }),
    async (c) => c.json({ ...(await services.admin.overview()), activeFederations: deps.activeFederations ? await deps.activeFederations() : 0 }),
  ));

  admin.get('/tenants', read, route(
    adminDoc('A page of tenants', { ...PAGED, responses: { 200: json(TenantPage, 'a page of tenants, oldest first') }, errors: { 400: 'invalid_request' } }),
    async (c, { query: q }) => envelope(c, q, await services.tenants.page(q.page, q.size)),
  ));

  admin.post('/tenants', manage, route(
    adminDoc('Create a tenant with its managed issuer and first signing key', {
      body: { schema: TenantCreate }, responses: { 201: json(Tenant, 'the tenant') }, errors: { 400: 'invalid_request', 409: 'tenant_conflict' },
    }),
    async (c, { body }) => c.json(await services.tenants.create(body, actor(c)), 201),
  ));

  admin.get('/tenants/:tenantId', read, inTenant(deps), route(
    adminDoc('One tenant', { params: TENANT, responses: { 200: json(Tenant, 'the tenant') }, errors: { 400: 'invalid_request' } }),
    async (c) => c.json(await services.tenants.view(inTenant.of(c).tenant)),
  ));

  admin.put('/tenants/:tenantId', manage, inTenant(deps), route(
    adminDoc("Replace a tenant's slug, issuer and registration mode, subject to its locks", {
      params: TENANT, body: { schema: TenantUpdate }, responses: { 200: json(Tenant, 'the updated tenant') },
      errors: { 400: 'invalid_request', 409: 'tenant_conflict, tenant_slug_locked, tenant_issuer_locked, configuration_managed' },
    }),
    async (c, { body }) => c.json(await services.tenants.update(inTenant.of(c).tenant.id, body, actor(c))),
  ));

  const USER = { ...TENANT, userId: UserIdParam };
  admin.get('/tenants/:tenantId/users', users, inTenant(deps), route(
    adminDoc("A page of the tenant's users, optionally only those whose email address contains a text", {
      params: TENANT,
      query: {
        ...pageQuery,
        email: {
          schema: T.String({ minLength: 1, maxLength: 320, description: 'only users whose email address contains this text, case-insensitively: a whole address, a prefix or @acme.test (as `engage users list --email`)' }),
        },
      },
      responses: { 200: json(UserPage, 'a page of users, oldest first') }, errors: { 400: 'invalid_request' },
    }),
    async (c, { query: q }) => envelope(c, q, await services.users.page(inTenant.of(c).tenant.id, q.page, q.size, { emailContains: q.email })),
  ));

  admin.post('/tenants/:tenantId/users', users, inTenant(deps), route(
    adminDoc('Create a user (no password: the user sets one through recovery, or signs in upstream)', {
      params: TENANT, body: { schema: AdminUserCreate }, responses: { 201: json(User, 'the user') }, errors: { 400: 'invalid_request', 409: 'user_conflict' },
    }),
    async (c, { body }) => c.json(await services.users.create(inTenant.of(c).tenant.id, body, actor(c)), 201),
  ));

  admin.get('/tenants/:tenantId/users/:userId', users, inTenant(deps, 'userId'), route(
    adminDoc('One user', { params: USER, responses: { 200: json(User, 'the user') }, errors: { 400: 'invalid_request', 404: 'unknown_user' } }),
    async (c) => {
      const { tenant, ids } = inTenant.of(c);
      return c.json(await services.users.get(tenant.id, ids.userId));
    },
  ));

  admin.put('/tenants/:tenantId/users/:userId', users, inTenant(deps, 'userId'), route(
    adminDoc("Replace a user's email, emailVerified and status (an email change without emailVerified leaves the address unverified)", {
      params: USER, body: { schema: UserUpdate }, responses: { 200: json(User, 'the updated user') },
      errors: { 400: 'invalid_request', 403: '(access_denied also for a user of the control tenant who holds a permission the operator does not)', 404: 'unknown_user', 409: 'user_conflict' },
    }),
    async (c, { body }) => {
      const { tenant, ids } = inTenant.of(c);
      return c.json(await services.users.update(tenant.id, ids.userId, body, actor(c), rank(c)));
    },
  ));

  admin.post('/tenants/:tenantId/users/:userId/password', users, inTenant(deps, 'userId'), route(
    adminDoc("Set a user's password (the registration policy applies); their sessions, grants and refresh tokens end", {
      params: USER, body: { schema: AdminPasswordSet }, responses: { 204: { description: 'password set' } },
      errors: { 400: 'invalid_request (also for a password outside the policy, named in error_description)', 403: '(access_denied also for a user of the control tenant who holds a permission the operator does not)', 404: 'unknown_user' },
    }),
    async (c, { body }) => {
      const { tenant: t, ids: { userId } } = inTenant.of(c);
      // The policy's rule as a body failure: invalid_request names it (the service would answer a bare invalid_password).
      const problem = checkPasswordPolicy(body.password);
      if (problem) throw AdminErrors.invalid(problem);
      await services.users.setPassword(t.id, userId, body.password, actor(c), rank(c));
      return c.body(null, 204);
    },
  ));

  admin.post('/tenants/:tenantId/users/:userId/recovery-mail', users, inTenant(deps, 'userId'), route(
    adminDoc("Mail an ACTIVE user a password recovery code, with a link to the hosted recovery page", {
      params: USER, responses: { 202: { description: 'the mail is queued (the outbox sends it)' } },
      errors: {
        400: 'invalid_request (also for a DISABLED user)', 403: '(access_denied also for a user of the control tenant who holds a permission the operator does not)', 404: 'unknown_user',
        429: 'too_many_attempts: a recovery code went to this address less than a minute ago (Retry-After)', 503: 'temporarily_unavailable: no SMTP server is configured',
      },
    }),
    async (c) => {
      const { tenant: t, ids } = inTenant.of(c);
      // The mail links to the hosted recovery page at the tenant's exposed issuer.
      await services.native.sendRecoveryMail({ tenant: t, issuer: services.tenants.issuerOf(t) }, ids.userId, { actor: actor(c), ...rank(c) });
      return c.body(null, 202);
    },
  ));

  admin.get('/tenants/:tenantId/users/:userId/second-factor', users, inTenant(deps, 'userId'), route(
    adminDoc("Whether a user has a second factor (TOTP authenticator) enrolled, since when, and how many recovery codes are left; never a secret (as `engage users mfa show`)", {
      params: USER, responses: { 200: json(SecondFactorStatus, 'the second factor of the user') }, errors: { 400: 'invalid_request', 404: 'unknown_user' },
    }),
    async (c) => {
      const { tenant, ids } = inTenant.of(c);
      await services.users.get(tenant.id, ids.userId);
      return c.json(await services.mfa.status(tenant.id, ids.userId));
    },
  ));

  admin.delete('/tenants/:tenantId/users/:userId/second-factor', users, inTenant(deps, 'userId'), route(
    adminDoc("Reset a user's second factor: remove the authenticator and the recovery codes (the user signs in with the password alone and may enrol again; as `engage users mfa reset`). Audited as user.mfa_reset; 204 also when none was enrolled", {
      params: USER, responses: { 204: { description: 'no second factor is left' } },
      errors: { 400: 'invalid_request', 403: '(access_denied also for a user of the control tenant who holds a permission the operator does not)', 404: 'unknown_user' },
    }),
    async (c) => {
      const { tenant, ids } = inTenant.of(c);
      const user = await services.users.get(tenant.id, ids.userId);
      const { authorize } = rank(c);
      await services.mfa.remove(tenant.id, ids.userId, actor(c), { authorize: (tx: Parameters<typeof authorize>[0]) => authorize(tx, { tenantId: tenant.id, subject: user.subject }) });
      return c.body(null, 204);
    },
  ));

  admin.delete('/tenants/:tenantId/users/:userId', users, inTenant(deps, 'userId'), route(
    adminDoc("Delete a user, ending their sessions, grants and tokens", {
      params: USER, responses: { 204: { description: 'deleted' } },
      errors: { 400: 'invalid_request', 403: '(access_denied also for a user of the control tenant who holds a permission the operator does not)', 404: 'unknown_user' },
    }),
    async (c) => {
      const { tenant, ids } = inTenant.of(c);
      await services.users.delete(tenant.id, ids.userId, actor(c), rank(c));
      return c.body(null, 204);
    },
  ));

  admin.get('/audit-events', read, route(
    adminDoc('A page of audit events, newest first, optionally filtered', {
      query: {
        ...pageQuery,
        tenant: { schema: TenantIdParam, description: 'only events of this tenant', read: (v: string[]) => tenantFilter(one('tenant', v)) },
        action: { schema: T.String(), description: 'only this action (tenant.updated, user.deleted, …)', read: (v: string[]) => one('action', v) },
        actor: { schema: T.String(), description: "only events of this actor subject (a token's sub, or os:<user> for the CLI)", read: (v: string[]) => one('actor', v) },
        from: { schema: DateTime(), description: 'only events at or after this time (RFC 3339)', read: (v: string[]) => time('from', v) },
        to: { schema: DateTime(), description: 'only events before this time (RFC 3339)', read: (v: string[]) => time('to', v) },
      },
      responses: { 200: json(AuditEventPage, 'a page of audit events') },
      errors: { 400: 'invalid_request' },
    }),
    async (c, { query: q }) => {
      const unknown = Object.keys(c.req.queries()).find((k) => !AUDIT_QUERY.has(k));
      if (unknown !== undefined) throw AdminErrors.invalid(`${unknown}: not a filter (tenant, action, actor, from, to, page, size)`);
      const r = await services.admin.auditEvents({ tenantId: q.tenant, action: q.action, actorSubject: q.actor, from: q.from, to: q.to, page: q.page, size: q.size });
      return envelope(c, q, r);
    },
  ));
}

/**
 * The audit filters of the query string, each given at most once and not empty (400
 * invalid_request otherwise). An unknown parameter is refused too: a mistyped filter
 * (`tenantId=`) would otherwise answer every event as if it had matched.
 */
const AUDIT_QUERY = new Set(['page', 'size', 'tenant', 'action', 'actor', 'from', 'to']);

function one(name: string, all: string[]): string | undefined {
  if (all.length === 0) return undefined;
  if (all.length !== 1 || all[0] === '') throw AdminErrors.invalid(`${name}: give it once, not empty`);
  return all[0];
}
function time(name: string, all: string[]): string | undefined {
  const v = one(name, all);
  if (v === undefined) return undefined;
  const ms = parseDateTime(v);
  if (Number.isNaN(ms)) throw AdminErrors.invalid(`${name}: must be an RFC 3339 date-time`);
  return new Date(ms).toISOString();
}
function tenantFilter(tenant: string | undefined): string | undefined {
  if (tenant !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(tenant)) throw AdminErrors.invalid('tenant: must be a tenant id (uuid)');
  return tenant?.toLowerCase();
}
