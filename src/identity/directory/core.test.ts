import { CHANNEL } from '../../platform/store/version-channels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { cliActor, type AuditActor } from '../../platform/audit/audit';
import { ADMIN_PERMISSIONS, DIRECTORY_PERMISSIONS } from './permissions';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let tenantId: string;
let otherTenantId: string;
let subject: string;
let otherSubject: string;
const actor: AuditActor = { subject: 'op', clientId: null };

beforeAll(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)).id;
  otherTenantId = (await h.services.tenants.create({ slug: 'globex' }, SYSTEM_ACTOR)).id;
  subject = (await h.services.users.create(tenantId, { email: 'ada@example.com' }, SYSTEM_ACTOR)).subject;
  otherSubject = (await h.services.users.create(otherTenantId, { email: 'ada@example.com' }, SYSTEM_ACTOR)).subject;
});
afterAll(() => h.close());

const events = async (action?: string) => (await h.services.store.audit.list({ tenantId, action, page: 0, size: 200 })).items;

describe('the permission core', () => {
  it('grantAdministrator gives the subject every permission through a TENANT role, idempotently, with audit events', async () => {
    const keys = Object.values(DIRECTORY_PERMISSIONS);
    expect(await h.services.directory.hasPermission(tenantId, subject, DIRECTORY_PERMISSIONS.read)).toBe(false);
    const first = await h.services.directory.grantAdministrator(tenantId, subject, keys, actor);
    expect(first).toMatchObject({ createdPermissions: keys, addedPermissions: keys, assigned: true });
    for (const k of keys) expect(await h.services.directory.hasPermission(tenantId, subject, k)).toBe(true);
    expect(await h.services.directory.hasPermission(tenantId, subject, ADMIN_PERMISSIONS.read)).toBe(false);
    // The other tenant is untouched: same email, another subject and directory.
    expect(await h.services.directory.hasPermission(otherTenantId, otherSubject, DIRECTORY_PERMISSIONS.read)).toBe(false);
    expect(await h.services.directory.hasPermission(otherTenantId, subject, DIRECTORY_PERMISSIONS.read)).toBe(false);

    const again = await h.services.directory.grantAdministrator(tenantId, subject, [...keys, ADMIN_PERMISSIONS.read], actor);
    expect(again).toMatchObject({ roleId: first.roleId, createdPermissions: [ADMIN_PERMISSIONS.read], addedPermissions: [ADMIN_PERMISSIONS.read], assigned: false });
    expect(await h.services.directory.hasPermission(tenantId, subject, ADMIN_PERMISSIONS.read)).toBe(true);

    const actions = (await events()).map((e) => e.action).filter((a) => a.startsWith('directory.')).sort();
    expect(actions).toEqual(
      [
        'directory.permission.created', 'directory.permission.created', 'directory.permission.created',
        'directory.role.created',
        'directory.role_permission.added', 'directory.role_permission.added', 'directory.role_permission.added',
        'directory.role_assignment.created',
      ].sort(),
    );
    const assigned = (await events('directory.role_assignment.created'))[0];
    expect(assigned).toMatchObject({ tenantId, actorSubject: 'op', actorClientId: null, targetType: 'directory_role_assignment', details: { roleKey: 'administrator', subject, scope: 'TENANT' } });
  });

  it('grantAdministrator refuses a subject that is not a user of the tenant, and bad keys', async () => {
    await expect(h.services.directory.grantAdministrator(tenantId, otherSubject, ['directory.read'], actor)).rejects.toMatchObject({ code: 'directory_operation_rejected' });
    await expect(h.services.directory.grantAdministrator(tenantId, subject, ['no spaces'], actor)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('a permission answer moves with the directory: a role permission removed, a role or permission disabled, an assignment revoked', async () => {
    const key = DIRECTORY_PERMISSIONS.manage;
    const ok = () => h.services.directory.hasPermission(tenantId, subject, key);
    expect(await ok()).toBe(true);
    await h.services.directory.removeRolePermission(tenantId, 'administrator', key, actor);
    expect(await ok()).toBe(false);
    await h.services.directory.addRolePermission(tenantId, 'administrator', { key }, actor);
    expect(await ok()).toBe(true);
    // Changes made outside this process's services (another process, raw SQL) are seen too.
    await changed(`UPDATE directory_permissions SET status = 'DISABLED' WHERE tenant_id = ? AND key = ?`, [tenantId, key]);
    expect(await ok()).toBe(false);
    await changed(`UPDATE directory_permissions SET status = 'ACTIVE' WHERE tenant_id = ? AND key = ?`, [tenantId, key]);
    await changed(`UPDATE directory_roles SET status = 'DISABLED' WHERE tenant_id = ? AND key = 'administrator'`, [tenantId]);
    expect(await ok()).toBe(false);
    await changed(`UPDATE directory_roles SET status = 'ACTIVE' WHERE tenant_id = ? AND key = 'administrator'`, [tenantId]);
    expect(await ok()).toBe(true);
    await h.services.directory.revokeRole(tenantId, { roleKey: 'administrator', subject, scope: 'TENANT', organizationId: null, teamId: null }, actor);
    expect(await ok()).toBe(false);
  });

  it('ORGANIZATION- and TEAM-scoped assignments grant no API permission', async () => {
    const d = h.services.directory;
    await d.createPermission(tenantId, { key: 'things.read', displayName: 'Read things' }, actor);
    await d.createRole(tenantId, { key: 'org-reader', displayName: 'Org reader', scope: 'ORGANIZATION' }, actor);
    await d.addRolePermission(tenantId, 'org-reader', { key: 'things.read' }, actor);
    const { id: organizationId } = await d.createOrganization(tenantId, { slug: 'eng', displayName: 'Engineering' }, actor);
    await d.addOrganizationMember(tenantId, 'eng', { subject }, actor);
    await d.assignRole(tenantId, { roleKey: 'org-reader', subject, scope: 'ORGANIZATION', organizationId, teamId: null }, actor);
    expect(await d.hasPermission(tenantId, subject, 'things.read')).toBe(false);
  });
});

describe('a deleted user', () => {
  it('forgetSubjectIn removes its memberships and assignments, in the caller\'s transaction', async () => {
    const d = h.services.directory;
    const { subject: gone } = await h.services.users.create(tenantId, { email: 'gone@example.com' }, SYSTEM_ACTOR);
    await d.addOrganizationMember(tenantId, 'eng', { subject: gone }, actor);
    await d.grantAdministrator(tenantId, gone, ['directory.read'], actor);
    expect(await d.hasPermission(tenantId, gone, 'directory.read')).toBe(true);
    const removed = await h.services.store.tx((tx) => d.forgetSubjectIn(tx, tenantId, gone));
    expect(removed).toBe(2);
    expect(await d.hasPermission(tenantId, gone, 'directory.read')).toBe(false);
    expect((await d.organizationMembers(tenantId, 'eng', { page: 0, size: 50 })).items.map((m) => m.subject)).not.toContain(gone);
  });
});

describe('the audit store', () => {
  it('filters by tenant, action, actor and time, newest first, in pages', async () => {
    const at = (s: string) => new Date(`2026-02-01T00:00:0${s}Z`);
    await h.services.store.tx(async (tx) => {
      for (let i = 0; i < 5; i++) await tx.audit.record(cliActor(), { tenantId: null, action: 'tenant.created', targetType: 'tenant', targetId: `t${i}`, details: { i }, at: at(String(i)) });
      await tx.audit.record({ subject: 'someone', clientId: 'cli' }, { tenantId: otherTenantId, action: 'user.deleted', targetType: 'user', targetId: 'u1', at: at('5') });
    });
    const all = await h.services.store.audit.list({ action: 'tenant.created', actorSubject: cliActor().subject, page: 0, size: 2 });
    expect(all).toMatchObject({ page: 0, size: 2, hasMore: true });
    expect(all.items.map((e) => e.targetId)).toEqual(['t4', 't3']);
    const last = await h.services.store.audit.list({ action: 'tenant.created', actorSubject: cliActor().subject, page: 2, size: 2 });
    expect([last.items.map((e) => e.targetId), last.hasMore]).toEqual([['t0'], false]);
    expect(last.items[0]).toMatchObject({ tenantId: null, actorSubject: expect.stringMatching(/^os:/), actorClientId: null, details: { i: 0 }, createdAt: '2026-02-01T00:00:00.000Z' });
    const window = await h.services.store.audit.list({ from: at('1').toISOString(), to: at('3').toISOString(), page: 0, size: 50 });
    expect(window.items.map((e) => e.targetId)).toEqual(['t2', 't1']);
    const byActor = await h.services.store.audit.list({ actorSubject: 'someone', tenantId: otherTenantId, page: 0, size: 50 });
    expect(byActor.items.map((e) => [e.action, e.actorClientId])).toEqual([['user.deleted', 'cli']]);
  });

  it('rolls back with the transaction it was written in', async () => {
    await expect(
      h.services.store.tx(async (tx) => {
        await tx.audit.record(actor, { tenantId, action: 'directory.thing.created', targetType: 'x', targetId: 'rolled-back' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await events('directory.thing.created')).toEqual([]);
  });
});

/** A raw change "by another process", awaited until this process's directory version moved (PostgreSQL: by notification). */
async function changed(text: string, params: unknown[]) {
  const before = h.services.store.version(CHANNEL.directory);
  await h.sql.run(text, params);
  for (let i = 0; i < 200 && h.services.store.version(CHANNEL.directory) === before; i++) await new Promise((r) => setTimeout(r, 5));
  expect(h.services.store.version(CHANNEL.directory)).not.toBe(before);
}
