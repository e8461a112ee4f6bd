import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { directoryFixture, type DirectoryFixture } from '../../../test/fixtures/directory';

/** Spec 03 directory routes: each route's success, with the state afterwards and its audit event. */
let h: Harness;
let f: DirectoryFixture;
let admin: Awaited<ReturnType<DirectoryFixture['admin']>>;
let alice: { id: string; subject: string };
let bob: { id: string; subject: string };

beforeAll(async () => {
  h = await createHarness();
  f = await directoryFixture(h, 'acme');
  admin = await f.admin();
  alice = await f.user('alice');
  bob = await f.user('bob');
});
afterAll(() => h.close());

const call = (method: string, path: string, body?: unknown) => f.call(admin.token, method, path, body);
const get = async (path: string) => {
  const res = await call('GET', path);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as { items: Record<string, unknown>[]; page: number; size: number; hasMore: boolean };
};
const expectEmpty = async (res: Response, status: number) => {
  expect([res.status, await res.text()]).toEqual([status, '']);
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const lastEvent = async (action: string) => (await h.services.store.audit.list({ tenantId: f.tenantId, action, page: 0, size: 1 })).items[0];

let orgId: string;
let teamId: string;

describe('directory routes', () => {
  it('POST and GET /organizations: 201 {id}, then a page', async () => {
    const res = await call('POST', '/organizations', { slug: 'eng', displayName: 'Engineering' });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string };
    expect(Object.keys(body)).toEqual(['id']);
    expect(body.id).toMatch(UUID);
    orgId = body.id;
    await call('POST', '/organizations', { slug: 'ops', displayName: 'Operations' });
    expect(await get('/organizations')).toEqual({
      items: [
        { id: orgId, slug: 'eng', displayName: 'Engineering', status: 'ACTIVE' },
        { id: expect.stringMatching(UUID), slug: 'ops', displayName: 'Operations', status: 'ACTIVE' },
      ],
      page: 0, size: 50, hasMore: false,
    });
    expect(await lastEvent('directory.organization.created')).toMatchObject({
      actorSubject: admin.subject, actorClientId: 'console', targetType: 'directory_organization', details: { slug: 'ops', displayName: 'Operations' },
    });
  });

  it('POST and GET /organizations/{slug}/teams', async () => {
    const res = await call('POST', '/organizations/eng/teams', { slug: 'platform', displayName: 'Platform' });
    expect(res.status).toBe(201);
    teamId = ((await res.json()) as { id: string }).id;
    expect((await get('/organizations/eng/teams')).items).toEqual([{ id: teamId, organizationId: orgId, slug: 'platform', displayName: 'Platform', status: 'ACTIVE' }]);
    expect((await get('/organizations/ops/teams')).items).toEqual([]);
    expect(await lastEvent('directory.team.created')).toMatchObject({ targetId: teamId, details: { organizationId: orgId, slug: 'platform' } });
  });

  it('POST /organizations/{slug}/members: 204; GET lists the members', async () => {
    await expectEmpty(await call('POST', '/organizations/eng/members', { subject: alice.subject }), 204);
    await expectEmpty(await call('POST', '/organizations/eng/members', { subject: bob.subject }), 204);
    expect((await get('/organizations/eng/members')).items).toEqual(
      [alice.subject, bob.subject].sort().map((subject) => ({ subject, status: 'ACTIVE' })),
    );
    expect(await lastEvent('directory.organization_member.added')).toMatchObject({ targetId: orgId, details: { subject: bob.subject } });
  });

  it('POST …/teams/{slug}/members: 204 for an organization member; GET lists them', async () => {
    await expectEmpty(await call('POST', '/organizations/eng/teams/platform/members', { subject: alice.subject }), 204);
    expect((await get('/organizations/eng/teams/platform/members')).items).toEqual([{ subject: alice.subject, status: 'ACTIVE' }]);
    expect(await lastEvent('directory.team_member.added')).toMatchObject({ targetId: teamId, details: { subject: alice.subject } });
  });

  it('POST and GET /permissions: 201 with an empty body', async () => {
    await expectEmpty(await call('POST', '/permissions', { key: 'billing.read', displayName: 'Read billing' }), 201);
    const keys = (await get('/permissions')).items;
    expect(keys).toContainEqual({ key: 'billing.read', displayName: 'Read billing', status: 'ACTIVE' });
    expect(keys.map((p) => p.key)).toEqual([...keys.map((p) => p.key as string)].sort());
    expect(await lastEvent('directory.permission.created')).toMatchObject({ targetId: 'billing.read' });
  });

  it('POST and GET /roles: 201 {id}', async () => {
    for (const [key, scope] of [['org-admin', 'ORGANIZATION'], ['team-lead', 'TEAM'], ['auditor', 'TENANT']] as const) {
      const res = await call('POST', '/roles', { key, displayName: key, scope });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { id: string }).id).toMatch(UUID);
    }
    const roles = (await get('/roles')).items;
    expect(roles.map((r) => [r.key, r.scope, r.status])).toEqual([
      ['administrator', 'TENANT', 'ACTIVE'], ['auditor', 'TENANT', 'ACTIVE'], ['org-admin', 'ORGANIZATION', 'ACTIVE'], ['team-lead', 'TEAM', 'ACTIVE'],
    ]);
  });

  it('POST, GET and DELETE /roles/{key}/permissions', async () => {
    await expectEmpty(await call('POST', '/roles/auditor/permissions', { key: 'billing.read' }), 204);
    expect((await get('/roles/auditor/permissions')).items).toEqual([{ key: 'billing.read', displayName: 'Read billing', status: 'ACTIVE' }]);
    expect(await h.services.directory.hasPermission(f.tenantId, bob.subject, 'billing.read')).toBe(false);
    await expectEmpty(await call('DELETE', '/roles/auditor/permissions/billing.read'), 204);
    expect((await get('/roles/auditor/permissions')).items).toEqual([]);
    expect(await lastEvent('directory.role_permission.removed')).toMatchObject({ details: { roleKey: 'auditor', permissionKey: 'billing.read' } });
    await expectEmpty(await call('POST', '/roles/auditor/permissions', { key: 'billing.read' }), 204);
  });

  it('POST /role-assignments in each context; GET lists them; a TENANT assignment grants the permission', async () => {
    const assignments = [
      { roleKey: 'auditor', subject: bob.subject, scope: 'TENANT', organizationId: null, teamId: null },
      { roleKey: 'org-admin', subject: alice.subject, scope: 'ORGANIZATION', organizationId: orgId, teamId: null },
      { roleKey: 'team-lead', subject: alice.subject, scope: 'TEAM', organizationId: orgId, teamId },
    ];
    for (const a of assignments) await expectEmpty(await call('POST', '/role-assignments', a), 204);
    const listed = (await get('/role-assignments')).items;
    for (const a of assignments) expect(listed).toContainEqual(a);
    expect(await h.services.directory.hasPermission(f.tenantId, bob.subject, 'billing.read')).toBe(true);
    expect(await lastEvent('directory.role_assignment.created')).toMatchObject({ details: assignments[2] });
  });

  it('POST /role-assignments/revocations: 204, and the permission is gone', async () => {
    const a = { roleKey: 'auditor', subject: bob.subject, scope: 'TENANT', organizationId: null, teamId: null };
    await expectEmpty(await call('POST', '/role-assignments/revocations', a), 204);
    expect((await get('/role-assignments')).items).not.toContainEqual(a);
    expect(await h.services.directory.hasPermission(f.tenantId, bob.subject, 'billing.read')).toBe(false);
    expect(await lastEvent('directory.role_assignment.revoked')).toMatchObject({ actorSubject: admin.subject, details: a });
  });

  it('removing an organization member removes its team memberships and its ORGANIZATION and TEAM assignments', async () => {
    await expectEmpty(await call('POST', '/organizations/eng/members/removals', { subject: alice.subject }), 204);
    expect((await get('/organizations/eng/members')).items).toEqual([{ subject: bob.subject, status: 'ACTIVE' }]);
    expect((await get('/organizations/eng/teams/platform/members')).items).toEqual([]);
    const left = (await get('/role-assignments')).items;
    expect(left.filter((a) => a.subject === alice.subject)).toEqual([]);
    expect(await lastEvent('directory.organization_member.removed')).toMatchObject({ details: { subject: alice.subject, teamMembershipsRemoved: 1, roleAssignmentsRevoked: 2 } });
  });

  it('removing a team member removes its TEAM assignments in that team', async () => {
    await expectEmpty(await call('POST', '/organizations/eng/teams/platform/members', { subject: bob.subject }), 204);
    const a = { roleKey: 'team-lead', subject: bob.subject, scope: 'TEAM', organizationId: orgId, teamId };
    await expectEmpty(await call('POST', '/role-assignments', a), 204);
    await expectEmpty(await call('POST', '/organizations/eng/teams/platform/members/removals', { subject: bob.subject }), 204);
    expect((await get('/organizations/eng/teams/platform/members')).items).toEqual([]);
    expect((await get('/role-assignments')).items).not.toContainEqual(a);
    // Still an organization member.
    expect((await get('/organizations/eng/members')).items).toEqual([{ subject: bob.subject, status: 'ACTIVE' }]);
  });

  it('pages: size and page bound the items, hasMore tells whether more follow', async () => {
    for (const k of ['p.a', 'p.b', 'p.c']) await call('POST', '/permissions', { key: k, displayName: k });
    const all = (await get('/permissions?size=200')).items.map((p) => p.key);
    const first = await get('/permissions?size=2');
    expect([first.items.map((p) => p.key), first.page, first.size, first.hasMore]).toEqual([all.slice(0, 2), 0, 2, true]);
    const lastPage = Math.floor((all.length - 1) / 2);
    const last = await get(`/permissions?size=2&page=${lastPage}`);
    expect([last.items.map((p) => p.key), last.hasMore]).toEqual([all.slice(lastPage * 2), false]);
    expect(await get('/permissions?page=1000000&size=200')).toEqual({ items: [], page: 1_000_000, size: 200, hasMore: false });
  });
});
