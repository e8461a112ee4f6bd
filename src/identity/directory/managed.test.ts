import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { SYSTEM_ACTOR } from '../audit';
import { applyConfiguration } from '../operators/apply';
import type { ApplyFile } from '../operators/apply-schema';
import { directoryFixture, type DirectoryFixture } from '../../../test/fixtures/directory';
import { apiError } from '../../../test/helpers/api-error';

/**
 * Issue 21 point 5: a role `engage apply` created could be edited through the directory API. What
 * apply owns answers 409 configuration_managed there, as the management API does for its
 * objects; apply itself still changes it, and what it does not own stays editable.
 */
let h: Harness;
let f: DirectoryFixture;
let admin: Awaited<ReturnType<DirectoryFixture['admin']>>;

const actor = { subject: 'os:ci', clientId: null };
const file = (permissions: string[]): ApplyFile => ({
  version: 1,
  tenants: [
    {
      slug: 'acme',
      permissions: [{ key: 'orders.approve', displayName: 'Approve orders' }, { key: 'orders.refund', displayName: 'Refund orders' }],
      roles: [{ key: 'approver', displayName: 'Approver', scope: 'TENANT', permissions }],
    },
  ],
});

beforeAll(async () => {
  h = await createHarness();
  f = await directoryFixture(h, 'acme');
  admin = await f.admin();
  await applyConfiguration(h.services, file(['orders.approve']), { dryRun: false, env: {}, actor });
});
afterAll(() => h.close());

const call = async (method: string, path: string, body?: unknown) => {
  const res = await f.call(admin.token, method, path, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const permissionsOf = async (role: string) => (await h.services.directory.rolePermissions(f.tenantId, role, { page: 0, size: 50 })).items.map((p) => p.key).sort();
const roleEvents = async () => (await h.services.store.audit.list({ tenantId: f.tenantId, page: 0, size: 200 })).items.filter((e) => e.action.startsWith('directory.role_permission'));

describe('configuration-managed directory objects', () => {
  it("a role apply created: adding or removing its permissions through the directory API is 409 configuration_managed, and nothing changes", async () => {
    const events = (await roleEvents()).length;
    expect(await call('POST', '/roles/approver/permissions', { key: 'orders.refund' })).toEqual({ status: 409, body: { error: 'configuration_managed' } });
    expect(await call('DELETE', '/roles/approver/permissions/orders.approve')).toEqual({ status: 409, body: { error: 'configuration_managed' } });
    expect(await permissionsOf('approver')).toEqual(['orders.approve']);
    expect((await roleEvents()).length).toBe(events);
    // The validation of the request still comes first (400), and a role apply does not own is not this case.
    expect(await call('POST', '/roles/approver/permissions', { key: 'Not A Key' })).toEqual({ status: 400, body: apiError('invalid_request') });
    expect(await call('POST', '/roles/nobody/permissions', { key: 'orders.refund' })).toEqual({ status: 409, body: { error: 'directory_operation_rejected' } });
  });

  it('the CLI (the same service) is refused the same way', async () => {
    await expect(h.services.directory.addRolePermission(f.tenantId, 'approver', { key: 'orders.refund' }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(h.services.directory.removeRolePermission(f.tenantId, 'approver', 'orders.approve', SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    expect(await permissionsOf('approver')).toEqual(['orders.approve']);
  });

  it('re-creating what apply owns stays a duplicate (directory_operation_rejected), as for any existing key', async () => {
    expect(await call('POST', '/roles', { key: 'approver', displayName: 'Mine now', scope: 'TENANT' })).toEqual({ status: 409, body: { error: 'directory_operation_rejected' } });
    expect(await call('POST', '/permissions', { key: 'orders.approve', displayName: 'Mine now' })).toEqual({ status: 409, body: { error: 'directory_operation_rejected' } });
    const roles = (await h.services.directory.roles(f.tenantId, { page: 0, size: 50 })).items;
    expect(roles.find((r) => r.key === 'approver')).toMatchObject({ displayName: 'Approver', scope: 'TENANT', status: 'ACTIVE' });
  });

  it('what apply does not own stays editable: a role of the directory API, and assignments of the managed role', async () => {
    expect((await call('POST', '/roles', { key: 'clerk', displayName: 'Clerk', scope: 'TENANT' })).status).toBe(201);
    expect(await call('POST', '/roles/clerk/permissions', { key: 'orders.approve' })).toEqual({ status: 204, body: null });
    expect(await call('DELETE', '/roles/clerk/permissions/orders.approve')).toEqual({ status: 204, body: null });
    const alice = await f.user('alice');
    const assignment = { roleKey: 'approver', subject: alice.subject, scope: 'TENANT', organizationId: null, teamId: null };
    expect(await call('POST', '/role-assignments', assignment)).toEqual({ status: 204, body: null });
    expect(await h.services.directory.hasPermission(f.tenantId, alice.subject, 'orders.approve')).toBe(true);
    expect(await call('POST', '/role-assignments/revocations', assignment)).toEqual({ status: 204, body: null });
  });

  it('apply itself still changes the role it owns', async () => {
    await applyConfiguration(h.services, file(['orders.refund']), { dryRun: false, env: {}, actor });
    expect(await permissionsOf('approver')).toEqual(['orders.refund']);
    expect((await applyConfiguration(h.services, file(['orders.refund']), { dryRun: false, env: {}, actor })).changed).toBe(false);
  });
});
