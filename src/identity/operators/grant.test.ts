import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { SYSTEM_ACTOR } from '../audit';
import { OPERATOR_PERMISSIONS } from '../directory/permissions';
import { ensureOperator, grantPermissions } from './operators';

/** `engage operators grant|revoke`: permissions one by one, narrowed ones included, live at the next request. */
let h: Harness;
let a: EngageAdminFixture;

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  for (const name of ['prod', 'staging']) await h.services.engage.environments.create({ name }, SYSTEM_ACTOR);
});
afterAll(() => h.close());

describe('granting an operator permissions one by one', () => {
  it('a permission narrowed to staging opens staging only; granted twice it is held already; revoked, it is refused on the same token', async () => {
    const ada = await a.newOperator('ada@example.com');
    const control = (await h.services.tenants.control())!;
    const granted = await grantPermissions(h.services, { email: 'ada@example.com', permissions: ['engage.admin.read:staging', 'engage.admin.read:staging'] }, SYSTEM_ACTOR);
    expect(granted).toEqual({ email: 'ada@example.com', subject: ada.subject, permissions: [{ key: 'engage.admin.read:staging', changed: true }] });
    expect(await h.services.directory.hasPermission(control.id, ada.subject, 'engage.admin.read:staging')).toBe(true);
    expect(await h.services.directory.hasPermission(control.id, ada.subject, 'engage.admin.read')).toBe(false);
    const token = await a.token(['engage.admin.read'], ada.id);
    const list = await a.call('GET', '/environments', token);
    expect(((await list.json()) as { items: { name: string }[] }).items.map((e) => e.name)).toEqual(['staging']);
    expect((await a.call('GET', '/environments/prod', token)).status).toBe(403);

    const again = await grantPermissions(h.services, { email: 'ada@example.com', permissions: ['engage.admin.read:staging'] }, SYSTEM_ACTOR);
    expect(again.permissions).toEqual([{ key: 'engage.admin.read:staging', changed: false }]);
    // Another operator granted the same permission shares its role.
    const bob = await a.newOperator('bob@example.com');
    await grantPermissions(h.services, { email: 'bob@example.com', permissions: ['engage.admin.read:staging'] }, SYSTEM_ACTOR);
    expect(await h.services.directory.hasPermission(control.id, bob.subject, 'engage.admin.read:staging')).toBe(true);

    const revoked = await grantPermissions(h.services, { email: 'ada@example.com', permissions: ['engage.admin.read:staging'], revoke: true }, SYSTEM_ACTOR);
    expect(revoked.permissions).toEqual([{ key: 'engage.admin.read:staging', changed: true }]);
    expect((await a.call('GET', '/environments/staging', token)).status).toBe(403);
    expect(await h.services.directory.hasPermission(control.id, bob.subject, 'engage.admin.read:staging')).toBe(true);
    const twice = await grantPermissions(h.services, { email: 'ada@example.com', permissions: ['engage.admin.read:staging'], revoke: true }, SYSTEM_ACTOR);
    expect(twice.permissions).toEqual([{ key: 'engage.admin.read:staging', changed: false }]);
  });

  it('an operator made by engage operators create (every permission, through the administrator role) is narrowed by a revoke: exactly the rest stays', async () => {
    const made = await ensureOperator(h.services, { email: 'max@example.com', password: 'correct horse battery staple' }, SYSTEM_ACTOR);
    const control = (await h.services.tenants.control())!;
    const holds = async (key: string) => h.services.directory.hasPermission(control.id, made.subject, key);
    expect(await holds('engage.admin.manage')).toBe(true);
    const revoked = await grantPermissions(h.services, { email: 'max@example.com', permissions: ['engage.admin.manage', 'engage.admin.privacy'], revoke: true }, SYSTEM_ACTOR);
    expect(revoked.permissions).toEqual([{ key: 'engage.admin.manage', changed: true }, { key: 'engage.admin.privacy', changed: true }]);
    for (const key of OPERATOR_PERMISSIONS) expect([key, await holds(key)]).toEqual([key, !['engage.admin.manage', 'engage.admin.privacy'].includes(key)]);
    // Narrowed back to one environment; revoked again, nothing more to take.
    await grantPermissions(h.services, { email: 'max@example.com', permissions: ['engage.admin.manage:staging'] }, SYSTEM_ACTOR);
    expect([await holds('engage.admin.manage:staging'), await holds('engage.admin.manage')]).toEqual([true, false]);
    const again = await grantPermissions(h.services, { email: 'max@example.com', permissions: ['engage.admin.manage'], revoke: true }, SYSTEM_ACTOR);
    expect(again.permissions).toEqual([{ key: 'engage.admin.manage', changed: false }]);
    expect(await holds('engage.admin.read')).toBe(true);
  });

  it('an unknown operator or a malformed key is refused, nothing made', async () => {
    await expect(grantPermissions(h.services, { email: 'nobody@example.com', permissions: ['engage.admin.read'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'unknown_user' });
    await a.newOperator('eve@example.com');
    await expect(grantPermissions(h.services, { email: 'eve@example.com', permissions: ['bad key'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    // A revoke reaches the assignment first: the CLI's door checks it with the route's schema.
    await expect(grantPermissions(h.services, { email: 'eve@example.com', permissions: ['bad key'], revoke: true }, SYSTEM_ACTOR)).rejects.toMatchObject({
      code: 'invalid_request', message: expect.stringContaining('roleKey: must match') as unknown,
    });
  });
});
