import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { CALLBACK, createFixture, publicClientToken, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';
import { DIRECTORY_PERMISSIONS } from '../directory/permissions';
import { directoryUrl } from '../directory/routes';
import { apiError } from '../../../test/helpers/api-error';
import { ADMINISTRATOR_ROLE } from '../directory/permissions';
import { ADMIN_SCOPES } from './schemas';

/**
 * The management API's directory writes of a tenant (routes-directory.ts, for the console, issue
 * 25): the directory API's through the same service, each audited with the operator; its errors;
 * the scope and live permission; and the control tenant's directory refused (403 access_denied),
 * so an operator cannot grant themselves or anyone a permission past `engage operators`.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let token: string;
let base: string;
let tenantId: string;

beforeAll(async () => {
  h = await createHarness();
  a = await createAdminFixture(h);
  acme = await createFixture(h, 'acme');
  token = await a.token();
  tenantId = acme.tenant.tenant.id;
  base = `/tenants/${tenantId}/directory`;
});
afterAll(() => h.close());

const call = async (method: string, path: string, body?: unknown, as = token) => {
  const res = await a.call(method, path, as, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const tenantAssignment = (roleKey: string, subject: string) => ({ roleKey, subject, scope: 'TENANT', organizationId: null, teamId: null });

describe('directory writes of a tenant', () => {
  it('creates an organization and a team, adds and removes members, a permission, a role and its permissions, assigns and revokes: each audited with the operator', async () => {
    const org = await call('POST', `${base}/organizations`, { slug: 'north', displayName: 'North' });
    expect(org).toEqual({ status: 201, body: { id: expect.any(String) } });
    const team = await call('POST', `${base}/organizations/north/teams`, { slug: 'sales', displayName: 'Sales' });
    expect(team).toEqual({ status: 201, body: { id: expect.any(String) } });
    expect(await call('POST', `${base}/organizations/north/members`, { subject: acme.subject })).toEqual({ status: 204, body: null });
    expect(await call('POST', `${base}/organizations/north/teams/sales/members`, { subject: acme.subject })).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/organizations/north/members`)).body).toEqual({ items: [{ subject: acme.subject, status: 'ACTIVE' }], page: 0, size: 50, hasMore: false });
    expect((await call('GET', `${base}/organizations/north/teams/sales/members`)).body.items).toEqual([{ subject: acme.subject, status: 'ACTIVE' }]);

    expect(await call('POST', `${base}/permissions`, { key: 'orders.read', displayName: 'Read orders' })).toEqual({ status: 201, body: null });
    expect(await call('POST', `${base}/roles`, { key: 'clerk', displayName: 'Clerk', scope: 'TEAM' })).toEqual({ status: 201, body: { id: expect.any(String) } });
    expect(await call('POST', `${base}/roles/clerk/permissions`, { key: 'orders.read' })).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/roles/clerk/permissions`)).body.items).toEqual([{ key: 'orders.read', displayName: 'Read orders', status: 'ACTIVE' }]);
    const assignment = { roleKey: 'clerk', subject: acme.subject, scope: 'TEAM', organizationId: org.body.id, teamId: team.body.id };
    expect(await call('POST', `${base}/role-assignments`, assignment)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/role-assignments`)).body.items).toEqual([assignment]);
    expect(await call('POST', `${base}/role-assignments/revocations`, assignment)).toEqual({ status: 204, body: null });
    expect(await call('POST', `${base}/role-assignments`, assignment)).toEqual({ status: 204, body: null });
    // Removing the team membership takes the TEAM assignment with it (the service's rule, as the directory API).
    expect(await call('POST', `${base}/organizations/north/teams/sales/members/removals`, { subject: acme.subject })).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/role-assignments`)).body.items).toEqual([]);
    expect(await call('DELETE', `${base}/roles/clerk/permissions/orders.read`)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/roles/clerk/permissions`)).body.items).toEqual([]);
    expect(await call('POST', `${base}/organizations/north/members/removals`, { subject: acme.subject })).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/organizations/north/members`)).body.items).toEqual([]);

    const events = (await h.services.admin.auditEvents({ tenantId, page: 0, size: 200 })).items.filter((e) => e.action.startsWith('directory.') && e.actorSubject === a.operator.subject);
    expect(events.map((e) => e.action).reverse()).toEqual([
      'directory.organization.created', 'directory.team.created', 'directory.organization_member.added', 'directory.team_member.added',
      'directory.permission.created', 'directory.role.created', 'directory.role_permission.added', 'directory.role_assignment.created',
      'directory.role_assignment.revoked', 'directory.role_assignment.created', 'directory.team_member.removed', 'directory.role_permission.removed',
      'directory.organization_member.removed',
    ]);
  });

  it.each([
    ['a taken organization slug', 'POST', '/organizations', { slug: 'north', displayName: 'Again' }, 409, 'directory_operation_rejected'],
    ['a slug with capitals', 'POST', '/organizations', { slug: 'North', displayName: 'N' }, 400, 'invalid_request'],
    ['an unknown field', 'POST', '/organizations', { slug: 'south', displayName: 'S', owner: 'x' }, 400, 'invalid_request'],
    ['a team of an unknown organization', 'POST', '/organizations/south/teams', { slug: 'x', displayName: 'X' }, 409, 'directory_operation_rejected'],
    ['a member who is no user of the tenant', 'POST', '/organizations/north/members', { subject: 'nobody' }, 409, 'directory_operation_rejected'],
    ['a team member outside the organization', 'POST', '/organizations/north/teams/sales/members', { subject: 'nobody' }, 409, 'directory_operation_rejected'],
    ['a taken permission key', 'POST', '/permissions', { key: 'orders.read', displayName: 'Again' }, 409, 'directory_operation_rejected'],
    ['a role of an unknown scope', 'POST', '/roles', { key: 'r2', displayName: 'R', scope: 'WORLD' }, 400, 'invalid_request'],
    ['an unknown permission for a role', 'POST', '/roles/clerk/permissions', { key: 'nothing.here' }, 409, 'directory_operation_rejected'],
    ['a permission the role does not hold', 'DELETE', '/roles/clerk/permissions/orders.read', undefined, 409, 'directory_operation_rejected'],
    ['an assignment outside its scope context', 'POST', '/role-assignments', { roleKey: 'clerk', subject: 'x', scope: 'TEAM', organizationId: null, teamId: null }, 400, 'invalid_request'],
    ['a revocation of no assignment', 'POST', '/role-assignments/revocations', { roleKey: 'nope', subject: 'x', scope: 'TENANT', organizationId: null, teamId: null }, 409, 'directory_operation_rejected'],
  ])('%s (%s %s) is %i %s, as the directory API answers', async (_what, method, path, body, status, error) => {
    const before = (await call('GET', `${base}/organizations`)).body.items.length;
    expect(await call(method, `${base}${path}`, body)).toEqual({ status, body: apiError(error) });
    expect((await call('GET', `${base}/organizations`)).body.items).toHaveLength(before);
  });

  it('needs identity.admin.manage with its live permission', async () => {
    const reader = await a.token([ADMIN_SCOPES.read]);
    expect(await call('POST', `${base}/organizations`, { slug: 'east', displayName: 'East' }, reader)).toEqual({ status: 403, body: { error: 'insufficient_scope' } });
    const stranger = await a.newOperator('directory-writer@example.com', [ADMIN_SCOPES.read]);
    const scoped = await a.token([ADMIN_SCOPES.manage], stranger.id);
    expect(await call('POST', `${base}/organizations`, { slug: 'east', displayName: 'East' }, scoped)).toEqual({ status: 403, body: { error: 'access_denied' } });
    expect((await call('GET', `${base}/organizations`)).body.items.map((o: { slug: string }) => o.slug)).toEqual(['north']);
  });
});

describe('directory deletions of a tenant', () => {
  it('deletes a permission (taken from its roles), a team, a role and an organization, with what depends on each, audited with counts', async () => {
    const d = `${base}`;
    const has = (key: string) => h.services.directory.hasPermission(tenantId, acme.subject, key);
    const west = (await call('POST', `${d}/organizations`, { slug: 'west', displayName: 'West' })).body.id as string;
    const ops = (await call('POST', `${d}/organizations/west/teams`, { slug: 'ops', displayName: 'Ops' })).body.id as string;
    await call('POST', `${d}/organizations/west/members`, { subject: acme.subject });
    await call('POST', `${d}/organizations/west/teams/ops/members`, { subject: acme.subject });
    await call('POST', `${d}/permissions`, { key: 'stock.read', displayName: 'Read stock' });
    await call('POST', `${d}/roles`, { key: 'boss', displayName: 'Boss', scope: 'TENANT' });
    await call('POST', `${d}/roles`, { key: 'lead', displayName: 'Lead', scope: 'TEAM' });
    await call('POST', `${d}/roles/boss/permissions`, { key: 'stock.read' });
    expect((await call('POST', `${d}/role-assignments`, tenantAssignment('boss', acme.subject))).status).toBe(204);
    const lead = { roleKey: 'lead', subject: acme.subject, scope: 'TEAM', organizationId: west, teamId: ops };
    expect((await call('POST', `${d}/role-assignments`, lead)).status).toBe(204);
    expect(await has('stock.read')).toBe(true);

    expect(await call('DELETE', `${d}/permissions/stock.read`)).toEqual({ status: 204, body: null });
    expect(await has('stock.read')).toBe(false);
    expect((await call('GET', `${d}/roles/boss/permissions`)).body.items).toEqual([]);
    expect((await call('GET', `${d}/permissions`)).body.items.map((p: { key: string }) => p.key)).not.toContain('stock.read');

    expect(await call('DELETE', `${d}/organizations/west/teams/ops`)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${d}/organizations/west/teams`)).body.items).toEqual([]);
    expect((await call('GET', `${d}/role-assignments`)).body.items).toEqual([tenantAssignment('boss', acme.subject)]);

    expect(await call('DELETE', `${d}/roles/boss`)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${d}/role-assignments`)).body.items).toEqual([]);
    expect((await call('GET', `${d}/roles`)).body.items.map((r: { key: string }) => r.key)).not.toContain('boss');

    expect(await call('DELETE', `${d}/organizations/west`)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${d}/organizations`)).body.items.map((o: { slug: string }) => o.slug)).not.toContain('west');
    expect(await call('GET', `${d}/organizations/west/members`)).toEqual({ status: 409, body: apiError('directory_operation_rejected') });

    const events = (await h.services.admin.auditEvents({ tenantId, page: 0, size: 200 })).items.filter((e) => e.action.endsWith('.deleted'));
    expect(events.map((e) => [e.action, e.actorSubject, e.details]).reverse()).toEqual([
      ['directory.permission.deleted', a.operator.subject, { key: 'stock.read', roles: 1 }],
      ['directory.team.deleted', a.operator.subject, { organizationId: west, slug: 'ops', teamMemberships: 1, roleAssignments: 1 }],
      ['directory.role.deleted', a.operator.subject, { key: 'boss', scope: 'TENANT', permissions: 0, roleAssignments: 1 }],
      ['directory.organization.deleted', a.operator.subject, { slug: 'west', teams: 0, memberships: 1, teamMemberships: 0, roleAssignments: 0 }],
    ]);
  });

  it.each([
    ['an unknown organization', '/organizations/nowhere', 409, 'directory_operation_rejected'],
    ['an unknown team', '/organizations/north/teams/nowhere', 409, 'directory_operation_rejected'],
    ['an unknown role', '/roles/nobody', 409, 'directory_operation_rejected'],
    ['an unknown permission', '/permissions/no.such', 409, 'directory_operation_rejected'],
    ['a malformed key', '/permissions/bad%20key', 400, 'invalid_request'],
  ])('DELETE of %s is %i %s', async (_what, path, status, error) => {
    expect(await call('DELETE', `${base}${path}`)).toEqual({ status, body: apiError(error) });
  });

  it('refuses a role or permission engage apply owns (configuration_managed), and keeps it', async () => {
    await call('POST', `${base}/permissions`, { key: 'filed.perm', displayName: 'Filed' });
    await call('POST', `${base}/roles`, { key: 'filed', displayName: 'Filed', scope: 'TENANT' });
    await h.sql.run(`UPDATE directory_roles SET configuration_managed = 1 WHERE tenant_id = ? AND key = 'filed'`, [tenantId]);
    await h.sql.run(`UPDATE directory_permissions SET configuration_managed = 1 WHERE tenant_id = ? AND key = 'filed.perm'`, [tenantId]);
    expect(await call('DELETE', `${base}/roles/filed`)).toEqual({ status: 409, body: apiError('configuration_managed') });
    expect(await call('DELETE', `${base}/permissions/filed.perm`)).toEqual({ status: 409, body: apiError('configuration_managed') });
    expect((await call('GET', `${base}/roles`)).body.items.map((r: { key: string }) => r.key)).toContain('filed');
    expect((await call('GET', `${base}/permissions`)).body.items.map((p: { key: string }) => p.key)).toContain('filed.perm');
  });
});

describe("the control tenant's directory", () => {
  it('is read, never written: every write is 403 access_denied and changes nothing (operators grant|revoke and apply own it)', async () => {
    const control = `/tenants/${a.controlId}/directory`;
    const junior = await a.newOperator('junior@example.com', [ADMIN_SCOPES.read]);
    const has = () => h.services.directory.hasPermission(a.controlId, junior.subject, ADMIN_SCOPES.manage);
    const writes: [string, string, unknown][] = [
      ['POST', '/role-assignments', tenantAssignment(ADMINISTRATOR_ROLE, junior.subject)],
      ['POST', '/role-assignments/revocations', tenantAssignment(ADMINISTRATOR_ROLE, a.operator.subject)],
      ['POST', '/roles', { key: 'escalate', displayName: 'Escalate', scope: 'TENANT' }],
      ['POST', `/roles/${ADMINISTRATOR_ROLE}/permissions`, { key: 'engage.admin.manage' }],
      ['DELETE', `/roles/${ADMINISTRATOR_ROLE}/permissions/${ADMIN_SCOPES.manage}`, undefined],
      ['POST', '/permissions', { key: 'anything.new', displayName: 'New' }],
      ['POST', '/organizations', { slug: 'ops', displayName: 'Ops' }],
      ['POST', '/organizations/ops/teams', { slug: 'x', displayName: 'X' }],
      ['POST', '/organizations/ops/members', { subject: junior.subject }],
      ['POST', '/organizations/ops/members/removals', { subject: junior.subject }],
      ['POST', '/organizations/ops/teams/x/members', { subject: junior.subject }],
      ['POST', '/organizations/ops/teams/x/members/removals', { subject: junior.subject }],
      ['DELETE', `/roles/${ADMINISTRATOR_ROLE}`, undefined],
      ['DELETE', `/permissions/${ADMIN_SCOPES.manage}`, undefined],
      ['DELETE', '/organizations/ops', undefined],
      ['DELETE', '/organizations/ops/teams/x', undefined],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(method, `${control}${path}`, body);
      expect([path, res.status, res.body]).toEqual([path, 403, { error: 'access_denied' }]);
    }
    expect(await has()).toBe(false);
    expect(await h.services.directory.hasPermission(a.controlId, a.operator.subject, ADMIN_SCOPES.manage)).toBe(true);
    const roles = (await call('GET', `${control}/roles?size=200`)).body.items.map((r: { key: string }) => r.key);
    expect(roles).toContain(ADMINISTRATOR_ROLE);
    expect(roles).not.toContain('escalate');
    expect((await call('GET', `${control}/roles/${ADMINISTRATOR_ROLE}/permissions?size=200`)).body.items.map((p: { key: string }) => p.key)).toContain(ADMIN_SCOPES.manage);
    expect((await call('GET', `${control}/organizations`)).body.items).toEqual([]);
  });

  it("refuses the directory API's changes at the control issuer too (a control user given directory.manage cannot assign themselves a role), and still reads", async () => {
    const s = h.services;
    const control = (await s.tenants.control())!;
    const url = directoryUrl(s.tenants.issuerOf(control));
    await s.resources.create(control.id, { uri: url, audience: url, scopes: Object.values(DIRECTORY_PERMISSIONS) }, SYSTEM_ACTOR);
    await s.clients.create(control.id, {
      clientId: 'dir-console', displayName: 'Directory', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [CALLBACK], scopes: ['openid', ...Object.values(DIRECTORY_PERMISSIONS)], defaultResource: url,
    }, SYSTEM_ACTOR);
    const eve = await a.newOperator('eve@example.com');
    // directory.manage in the control tenant through a role of its own (the administrator role there holds the operators' permissions).
    await s.directory.createRole(control.id, { key: 'directory-admin', displayName: 'Directory', scope: 'TENANT' }, SYSTEM_ACTOR);
    for (const key of Object.values(DIRECTORY_PERMISSIONS)) {
      await s.directory.createPermission(control.id, { key, displayName: key }, SYSTEM_ACTOR);
      await s.directory.addRolePermission(control.id, 'directory-admin', { key }, SYSTEM_ACTOR);
    }
    await s.directory.assignRole(control.id, tenantAssignment('directory-admin', eve.subject) as never, SYSTEM_ACTOR);
    const bearer = await publicClientToken(h, { tenantId: control.id, slug: control.slug, clientId: 'dir-console', userId: eve.id, scope: Object.values(DIRECTORY_PERMISSIONS), resource: url });
    const dir = (method: string, path: string, body?: unknown) =>
      h.request(`/t/${control.slug}/identity/directory${path}`, { method, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    for (const [method, path, body] of [
      ['POST', '/role-assignments', tenantAssignment(ADMINISTRATOR_ROLE, eve.subject)],
      ['POST', `/roles/${ADMINISTRATOR_ROLE}/permissions`, { key: 'engage.admin.manage' }],
      ['POST', '/organizations', { slug: 'ops', displayName: 'Ops' }],
    ] as const) {
      const res = await dir(method, path, body);
      expect([path, res.status, ((await res.json()) as { error: string }).error]).toEqual([path, 403, 'access_denied']);
    }
    expect(await s.directory.hasPermission(control.id, eve.subject, ADMIN_SCOPES.manage)).toBe(false);
    expect((await dir('GET', '/roles')).status).toBe(200);
  });
});
