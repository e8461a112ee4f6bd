/**
 * The management API's test set-up (contracts §3): the control tenant's `identity-admin-api`
 * resource with its five scopes, a client to obtain tokens with, and an operator holding every
 * administration permission, made through the services. h-operators' control-tenant
 * initialisation may create the resource first: each step is skipped when already there.
 */
import { createHarness, type Harness } from './harness';
import { basic, CALLBACK, createFixture, publicClientToken, type OAuthFixture } from '../fixtures/oauth';
import { ADMIN_AUDIENCE, ADMIN_ROOT, ADMIN_SCOPES } from '../../src/identity/admin/schemas';
import { SYSTEM_ACTOR } from '../../src/identity/audit';
import { ADMINISTRATOR_ROLE } from '../../src/identity/directory/permissions';

export const ALL_ADMIN_SCOPES = Object.values(ADMIN_SCOPES);
export const ADMIN_CLIENT = 'admin-test';

export interface AdminFixture {
  controlId: string;
  /** `/t/control/identity/admin`: prefix of every management route in `h.request`. */
  root: string;
  operator: { id: string; subject: string };
  /** A fresh access token for the operator (or `userId`), with these scopes. */
  token(scopes?: string[], userId?: string, resource?: string | null): Promise<string>;
  /** A second user of the control tenant, with no permission yet. */
  newOperator(email: string, permissions?: string[]): Promise<{ id: string; subject: string }>;
  grant(subject: string, permissions: string[]): Promise<void>;
  /** Removes every administration permission of the subject (the live check must notice). */
  revoke(subject: string): Promise<void>;
  /** `h.request` on the management root with a bearer token and a JSON body. */
  call(method: string, path: string, token: string | undefined, body?: unknown): Promise<Response>;
  /** `call`, its status and its body parsed (`null` when empty), typed as `JSON.parse` types it: what the tests compare. */
  json(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: ReturnType<typeof JSON.parse> }>;
}

export async function createAdminFixture(h: Harness): Promise<AdminFixture> {
  const { services } = h;
  const control = (await services.tenants.control())!;
  const controlId = control.id;
  const issuer = services.tenants.issuerOf(control);
  const uri = issuer + ADMIN_ROOT;
  if (!(await services.resources.findByUri(controlId, uri))) {
    await services.resources.create(controlId, { uri, audience: ADMIN_AUDIENCE, scopes: ALL_ADMIN_SCOPES }, SYSTEM_ACTOR);
  }
  if (!(await services.clients.find(controlId, ADMIN_CLIENT))) {
    await services.clients.create(controlId, {
      clientId: ADMIN_CLIENT, displayName: 'Admin test', applicationType: 'WEB', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [CALLBACK], scopes: ['openid', ...ALL_ADMIN_SCOPES], defaultResource: uri,
    }, SYSTEM_ACTOR);
  }
  const root = `/t/${control.slug}${ADMIN_ROOT}`;

  // grantAdministrator gives every holder of the shared `administrator` role all of its
  // permissions: a partial set is a role of its own, one per distinct set.
  const roles = new Map<string, string>();
  const held = new Map<string, string[]>();
  async function grant(subject: string, permissions: string[]) {
    const set = [...new Set(permissions)].sort().join(' ');
    let roleKey = roles.get(set);
    if (!roleKey) {
      roleKey = `ops-${roles.size + 1}`;
      await services.directory.createRole(controlId, { key: roleKey, displayName: roleKey, scope: 'TENANT' }, SYSTEM_ACTOR);
      for (const key of permissions) {
        // A permission the control tenant does not have yet (one narrowed to an environment, `engage.admin.read:prod`).
        await services.directory.createPermission(controlId, { key, displayName: key }, SYSTEM_ACTOR).catch(() => undefined);
        await services.directory.addRolePermission(controlId, roleKey, { key }, SYSTEM_ACTOR);
      }
      roles.set(set, roleKey);
    }
    await services.directory.assignRole(controlId, { roleKey, subject, scope: 'TENANT', organizationId: null, teamId: null }, SYSTEM_ACTOR);
    held.set(subject, [...(held.get(subject) ?? []), roleKey]);
  }

  async function newOperator(email: string, permissions: string[] = []) {
    const u = await services.users.create(controlId, { email, emailVerified: true }, SYSTEM_ACTOR);
    if (permissions.length > 0) await grant(u.subject, permissions);
    return { id: u.id, subject: u.subject };
  }

  const first = await services.users.create(controlId, { email: 'operator@example.com', emailVerified: true }, SYSTEM_ACTOR);
  await services.directory.grantAdministrator(controlId, first.subject, ALL_ADMIN_SCOPES, SYSTEM_ACTOR);
  const operator = { id: first.id, subject: first.subject };

  const token = (scopes: string[] = ALL_ADMIN_SCOPES, userId = operator.id, resource: string | null = uri): Promise<string> =>
    publicClientToken(h, { tenantId: controlId, slug: control.slug, clientId: ADMIN_CLIENT, userId, scope: scopes, resource });

  async function revoke(subject: string) {
    for (const roleKey of held.get(subject) ?? []) {
      await services.directory.revokeRole(controlId, { roleKey, subject, scope: 'TENANT', organizationId: null, teamId: null }, SYSTEM_ACTOR);
    }
    held.delete(subject);
    if (subject === operator.subject) await revokeAdministrator(h, controlId, subject);
  }

  async function call(method: string, path: string, bearer: string | undefined, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return h.request(root + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  }

  async function json(method: string, path: string, bearer: string | undefined, body?: unknown) {
    const res = await call(method, path, bearer, body);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  return { controlId, root, operator, token, newOperator, grant, revoke, call, json };
}

/** The management tests' usual start: a harness, the admin fixture, tenant `slug` with its OAuth fixture, a token with every administration scope and `base`, the tenant's path. */
export async function createAdminTenant(slug = 'acme'): Promise<{ h: Harness; a: AdminFixture; acme: OAuthFixture; token: string; base: string }> {
  const h = await createHarness();
  const a = await createAdminFixture(h);
  const acme = await createFixture(h, slug);
  return { h, a, acme, token: await a.token(), base: `/tenants/${acme.tenant.tenant.id}` };
}

/** Takes the subject's administrator role away (the directory's own operation: a TENANT role assignment revoked). */
async function revokeAdministrator(h: Harness, controlId: string, subject: string): Promise<void> {
  await h.services.directory.revokeRole(controlId, { roleKey: ADMINISTRATOR_ROLE, subject, scope: 'TENANT', organizationId: null, teamId: null }, SYSTEM_ACTOR);
}

export { basic };
