import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { API } from '../../../test/fixtures/oauth';
import { directoryFixture, type DirectoryFixture } from '../../../test/fixtures/directory';
import { apiError } from '../../../test/helpers/api-error';

/** Spec 03 directory errors, as a table per route, and the guards (scope, live permission, token). */
let h: Harness;
let f: DirectoryFixture;
let other: DirectoryFixture;
let admin: Awaited<ReturnType<DirectoryFixture['admin']>>;
let member: { id: string; subject: string };
let outsider: { id: string; subject: string };
let orgId: string;
let teamId: string;
let otherOrgId: string;

beforeAll(async () => {
  h = await createHarness();
  f = await directoryFixture(h, 'acme');
  other = await directoryFixture(h, 'globex');
  admin = await f.admin();
  member = await f.user('member');
  outsider = await f.user('outsider');
  const d = h.services.directory;
  const actor = { subject: 'test', clientId: null };
  orgId = (await d.createOrganization(f.tenantId, { slug: 'eng', displayName: 'Engineering' }, actor)).id;
  otherOrgId = (await d.createOrganization(f.tenantId, { slug: 'ops', displayName: 'Ops' }, actor)).id;
  teamId = (await d.createTeam(f.tenantId, 'eng', { slug: 'platform', displayName: 'Platform' }, actor)).id;
  await d.addOrganizationMember(f.tenantId, 'eng', { subject: member.subject }, actor);
  await d.addTeamMember(f.tenantId, 'eng', 'platform', { subject: member.subject }, actor);
  await d.createPermission(f.tenantId, { key: 'billing.read', displayName: 'Read billing' }, actor);
  await d.createRole(f.tenantId, { key: 'org-admin', displayName: 'Org admin', scope: 'ORGANIZATION' }, actor);
  await d.createRole(f.tenantId, { key: 'team-lead', displayName: 'Team lead', scope: 'TEAM' }, actor);
  await d.createRole(f.tenantId, { key: 'auditor', displayName: 'Auditor', scope: 'TENANT' }, actor);
  await d.addRolePermission(f.tenantId, 'auditor', { key: 'billing.read' }, actor);
  await other.admin();
  await h.services.directory.createOrganization(other.tenantId, { slug: 'secret', displayName: 'Globex only' }, actor);
});
afterAll(() => h.close());

const tenantA = (roleKey: string, subject: string) => ({ roleKey, subject, scope: 'TENANT' as const, organizationId: null, teamId: null });
const orgA = (roleKey: string, subject: string, organizationId = orgId) => ({ roleKey, subject, scope: 'ORGANIZATION', organizationId, teamId: null });
const teamA = (roleKey: string, subject: string, organizationId = orgId, team = teamId) => ({ roleKey, subject, scope: 'TEAM', organizationId, teamId: team });

type Row = [name: string, method: string, path: string, body: unknown, status: number, error: string];
const BAD = 'invalid_request';
const REJ = 'directory_operation_rejected';

// Evaluated lazily: ids and subjects exist only after beforeAll.
const rows = (): Row[] => [
  // JSON shape and values.
  ['not JSON', 'POST', '/organizations', '{', 400, BAD],
  ['JSON of another type', 'POST', '/organizations', '[]', 400, BAD],
  ['unknown property', 'POST', '/organizations', { slug: 'x', displayName: 'X', extra: 1 }, 400, BAD],
  ['missing displayName', 'POST', '/organizations', { slug: 'x' }, 400, BAD],
  ['bad slug', 'POST', '/organizations', { slug: 'Not A Slug', displayName: 'X' }, 400, BAD],
  ['slug with a trailing hyphen', 'POST', '/organizations/eng/teams', { slug: 'team-', displayName: 'X' }, 400, BAD],
  ['bad key', 'POST', '/permissions', { key: 'has space', displayName: 'X' }, 400, BAD],
  ['bad role scope', 'POST', '/roles', { key: 'r', displayName: 'R', scope: 'GLOBAL' }, 400, BAD],
  ['empty subject', 'POST', '/organizations/eng/members', { subject: '' }, 400, BAD],
  ['subject not a string', 'POST', '/organizations/eng/members', { subject: 42 }, 400, BAD],
  ['TENANT with an organizationId', 'POST', '/role-assignments', { ...tenantA('auditor', member.subject), organizationId: orgId }, 400, BAD],
  ['ORGANIZATION without organizationId', 'POST', '/role-assignments', { ...orgA('org-admin', member.subject), organizationId: null }, 400, BAD],
  ['ORGANIZATION with a teamId', 'POST', '/role-assignments', { ...orgA('org-admin', member.subject), teamId }, 400, BAD],
  ['TEAM without teamId', 'POST', '/role-assignments/revocations', { ...teamA('team-lead', member.subject), teamId: null }, 400, BAD],
  ['organizationId not a uuid', 'POST', '/role-assignments', orgA('org-admin', member.subject, 'eng'), 400, BAD],
  ['assignment without teamId property', 'POST', '/role-assignments', { roleKey: 'auditor', subject: member.subject, scope: 'TENANT', organizationId: null }, 400, BAD],
  // Path values and pagination.
  ['bad organization slug in the path', 'GET', '/organizations/Eng_1/teams', undefined, 400, BAD],
  ['bad team slug in the path', 'POST', '/organizations/eng/teams/-x/members', { subject: member.subject }, 400, BAD],
  ['bad role key in the path', 'DELETE', '/roles/bad%20key/permissions/billing.read', undefined, 400, BAD],
  ['bad permission key in the path', 'DELETE', '/roles/auditor/permissions/bad%20key', undefined, 400, BAD],
  ['page negative', 'GET', '/organizations?page=-1', undefined, 400, BAD],
  ['page not an integer', 'GET', '/roles?page=1.5', undefined, 400, BAD],
  ['page past the bound', 'GET', '/permissions?page=1000001', undefined, 400, BAD],
  ['size 0', 'GET', '/role-assignments?size=0', undefined, 400, BAD],
  ['size 201', 'GET', '/organizations/eng/members?size=201', undefined, 400, BAD],
  ['size twice', 'GET', '/organizations/eng/teams/platform/members?size=1&size=2', undefined, 400, BAD],
  ['page on a role', 'GET', '/roles/auditor/permissions?page=x', undefined, 400, BAD],
  // Duplicates and missing dependencies.
  ['duplicate organization slug', 'POST', '/organizations', { slug: 'eng', displayName: 'Again' }, 409, REJ],
  ['teams of an unknown organization', 'GET', '/organizations/nope/teams', undefined, 409, REJ],
  ['team in an unknown organization', 'POST', '/organizations/nope/teams', { slug: 't', displayName: 'T' }, 409, REJ],
  ['duplicate team slug', 'POST', '/organizations/eng/teams', { slug: 'platform', displayName: 'Again' }, 409, REJ],
  ['members of an unknown organization', 'GET', '/organizations/nope/members', undefined, 409, REJ],
  ['member who is not a user of the tenant', 'POST', '/organizations/eng/members', { subject: 'nobody-here' }, 409, REJ],
  ['member already a member', 'POST', '/organizations/eng/members', { subject: member.subject }, 409, REJ],
  ['removal of a non-member', 'POST', '/organizations/eng/members/removals', { subject: outsider.subject }, 409, REJ],
  ['removal in an unknown organization', 'POST', '/organizations/nope/members/removals', { subject: member.subject }, 409, REJ],
  ['members of an unknown team', 'GET', '/organizations/eng/teams/nope/members', undefined, 409, REJ],
  ['team member without organization membership', 'POST', '/organizations/eng/teams/platform/members', { subject: outsider.subject }, 409, REJ],
  ['team member already a member', 'POST', '/organizations/eng/teams/platform/members', { subject: member.subject }, 409, REJ],
  ['team member in an unknown team', 'POST', '/organizations/eng/teams/nope/members', { subject: member.subject }, 409, REJ],
  ['team removal of a non-member', 'POST', '/organizations/eng/teams/platform/members/removals', { subject: outsider.subject }, 409, REJ],
  ['duplicate permission', 'POST', '/permissions', { key: 'billing.read', displayName: 'Again' }, 409, REJ],
  ['duplicate role', 'POST', '/roles', { key: 'auditor', displayName: 'Again', scope: 'TENANT' }, 409, REJ],
  ['permissions of an unknown role', 'GET', '/roles/nope/permissions', undefined, 409, REJ],
  ['unknown permission added to a role', 'POST', '/roles/auditor/permissions', { key: 'nope.read' }, 409, REJ],
  ['permission added to an unknown role', 'POST', '/roles/nope/permissions', { key: 'billing.read' }, 409, REJ],
  ['permission the role holds already', 'POST', '/roles/auditor/permissions', { key: 'billing.read' }, 409, REJ],
  ['removal of a permission the role lacks', 'DELETE', '/roles/org-admin/permissions/billing.read', undefined, 409, REJ],
  ['removal from an unknown role', 'DELETE', '/roles/nope/permissions/billing.read', undefined, 409, REJ],
  ['assignment of an unknown role', 'POST', '/role-assignments', tenantA('nope', member.subject), 409, REJ],
  ['assignment outside the role scope', 'POST', '/role-assignments', orgA('auditor', member.subject), 409, REJ],
  ['assignment to a subject that is not a user', 'POST', '/role-assignments', tenantA('auditor', 'nobody-here'), 409, REJ],
  ['ORGANIZATION assignment without membership', 'POST', '/role-assignments', orgA('org-admin', outsider.subject), 409, REJ],
  ['ORGANIZATION assignment in an unknown organization', 'POST', '/role-assignments', orgA('org-admin', member.subject, '00000000-0000-4000-8000-000000000000'), 409, REJ],
  ['TEAM assignment with a team of another organization', 'POST', '/role-assignments', teamA('team-lead', member.subject, otherOrgId), 409, REJ],
  ['TEAM assignment without team membership', 'POST', '/role-assignments', teamA('team-lead', outsider.subject), 409, REJ],
  ['revocation of an absent assignment', 'POST', '/role-assignments/revocations', tenantA('auditor', member.subject), 409, REJ],
  ['revocation of an unknown role', 'POST', '/role-assignments/revocations', tenantA('nope', member.subject), 409, REJ],
  // Tenant isolation: another tenant's organization is absent here.
  ['another tenant\'s organization', 'GET', '/organizations/secret/teams', undefined, 409, REJ],
];

describe('directory error table', () => {
  it('answers each row with its status and {error}, and changes nothing', async () => {
    const before = await h.services.store.audit.list({ tenantId: f.tenantId, page: 0, size: 200 });
    for (const [name, method, path, body, status, error] of rows()) {
      const res = await f.call(admin.token, method, path, body);
      expect([name, res.status, await res.json()]).toEqual([name, status, apiError(error)]);
    }
    const after = await h.services.store.audit.list({ tenantId: f.tenantId, page: 0, size: 200 });
    expect(after.items).toEqual(before.items);
  });

  it('an assignment twice is rejected the second time', async () => {
    expect((await f.call(admin.token, 'POST', '/role-assignments', orgA('org-admin', member.subject))).status).toBe(204);
    const res = await f.call(admin.token, 'POST', '/role-assignments', orgA('org-admin', member.subject));
    expect([res.status, await res.json()]).toEqual([409, { error: REJ }]);
  });

  it('an unknown issuer is 404 unknown_tenant', async () => {
    const res = await f.call(admin.token, 'GET', '/organizations', undefined, '/t/nope/identity/directory');
    expect([res.status, await res.json()]).toEqual([404, { error: 'unknown_tenant' }]);
  });

  it('tenants are isolated: each sees only its own directory', async () => {
    const mine = await f.call(admin.token, 'GET', '/organizations');
    expect(((await mine.json()) as { items: { slug: string }[] }).items.map((o) => o.slug)).toEqual(['eng', 'ops']);
    const otherAdmin = await other.admin();
    const theirs = await other.call(otherAdmin.token, 'GET', '/organizations');
    expect(((await theirs.json()) as { items: { slug: string }[] }).items.map((o) => o.slug)).toEqual(['secret']);
    // A member of acme is no user of globex.
    const res = await other.call(otherAdmin.token, 'POST', '/organizations/secret/members', { subject: member.subject });
    expect([res.status, await res.json()]).toEqual([409, { error: REJ }]);
  });
});

describe('directory guards', () => {
  const GETS = ['/organizations', '/organizations/eng/teams', '/organizations/eng/members', '/organizations/eng/teams/platform/members', '/permissions', '/roles', '/roles/auditor/permissions', '/role-assignments'];
  const WRITES: [string, string, unknown][] = [
    ['POST', '/organizations', { slug: 'new', displayName: 'New' }],
    ['POST', '/organizations/eng/teams', { slug: 'new', displayName: 'New' }],
    ['POST', '/organizations/eng/members', { subject: 'x' }],
    ['POST', '/organizations/eng/members/removals', { subject: 'x' }],
    ['POST', '/organizations/eng/teams/platform/members', { subject: 'x' }],
    ['POST', '/organizations/eng/teams/platform/members/removals', { subject: 'x' }],
    ['POST', '/permissions', { key: 'new', displayName: 'New' }],
    ['POST', '/roles', { key: 'new', displayName: 'New', scope: 'TENANT' }],
    ['POST', '/roles/auditor/permissions', { key: 'billing.read' }],
    ['DELETE', '/roles/auditor/permissions/billing.read', undefined],
    ['POST', '/role-assignments', tenantA('auditor', 'x')],
    ['POST', '/role-assignments/revocations', tenantA('auditor', 'x')],
  ];
  const ALL: [string, string, unknown][] = [...GETS.map((p): [string, string, unknown] => ['GET', p, undefined]), ...WRITES];
  const expectError = async (res: Response, status: number, error: string, wwwAuthenticate?: string | null) => {
    expect([res.status, await res.json()]).toEqual([status, apiError(error)]);
    if (wwwAuthenticate !== undefined) expect(res.headers.get('www-authenticate')).toBe(wwwAuthenticate);
  };

  it('401 invalid_token without a token, with a forged one, one of another tenant or one for another audience', async () => {
    const otherAdmin = await other.admin();
    const apiToken = await f.token(admin.id, ['directory.read', 'directory.manage', 'api.read'], API);
    for (const [method, path, body] of ALL)
      for (const token of [undefined, 'not-a-token', otherAdmin.token, apiToken]) await expectError(await f.call(token, method, path, body), 401, 'invalid_token', 'Bearer error="invalid_token"');
  });

  it('403 insufficient_scope naming the scope: reads need directory.read (or manage), writes directory.manage', async () => {
    const openidOnly = await f.token(admin.id, ['openid']);
    const readOnly = await f.token(admin.id, ['directory.read']);
    for (const p of GETS) await expectError(await f.call(openidOnly, 'GET', p), 403, 'insufficient_scope', 'Bearer error="insufficient_scope", scope="directory.read"');
    for (const [method, path, body] of WRITES)
      for (const t of [openidOnly, readOnly]) await expectError(await f.call(t, method, path, body), 403, 'insufficient_scope', 'Bearer error="insufficient_scope", scope="directory.manage"');
  });

  it('403 access_denied with the scope but without the live permission; manage implies read', async () => {
    const nobody = await f.user('nobody');
    const token = await f.token(nobody.id, ['directory.read', 'directory.manage']);
    for (const [method, path, body] of ALL) await expectError(await f.call(token, method, path, body), 403, 'access_denied');
    // A reader reads and may not write, even with the manage scope.
    const reader = await f.user('reader');
    const actor = { subject: 'test', clientId: null };
    await h.services.directory.createRole(f.tenantId, { key: 'directory-reader', displayName: 'Reader', scope: 'TENANT' }, actor);
    await h.services.directory.addRolePermission(f.tenantId, 'directory-reader', { key: 'directory.read' }, actor);
    await h.services.directory.assignRole(f.tenantId, tenantA('directory-reader', reader.subject), actor);
    const readerToken = await f.token(reader.id, ['directory.read', 'directory.manage']);
    for (const p of GETS) expect((await f.call(readerToken, 'GET', p)).status).toBe(200);
    for (const [method, path, body] of WRITES) await expectError(await f.call(readerToken, method, path, body), 403, 'access_denied');
    // A manage-only token of a manager reads.
    const manageOnly = await f.token(admin.id, ['directory.manage']);
    for (const p of GETS) expect((await f.call(manageOnly, 'GET', p)).status).toBe(200);
  });

  it('a permission removed while the token lives is refused on the next request', async () => {
    const boss = await f.admin();
    expect((await f.call(boss.token, 'GET', '/roles')).status).toBe(200);
    await h.services.directory.revokeRole(f.tenantId, tenantA('administrator', boss.subject), { subject: 'test', clientId: null });
    await expectError(await f.call(boss.token, 'GET', '/roles'), 403, 'access_denied');
    await expectError(await f.call(boss.token, 'POST', '/permissions', { key: 'late', displayName: 'Late' }), 403, 'access_denied');
    // Removed by another process (the CLI, a second server): seen as well.
    const peer = await f.admin();
    const cli = await h.otherProcess();
    expect((await f.call(peer.token, 'GET', '/roles')).status).toBe(200);
    await cli.directory.removeRolePermission(f.tenantId, 'administrator', 'directory.read', { subject: 'os:test', clientId: null });
    await cli.directory.removeRolePermission(f.tenantId, 'administrator', 'directory.manage', { subject: 'os:test', clientId: null });
    await waitFor(async () => (await f.call(peer.token, 'GET', '/roles')).status === 403);
  });
});

/** PostgreSQL: another process's change arrives by notification, within a second. */
async function waitFor(ok: () => Promise<boolean>) {
  for (let i = 0; i < 100; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('not seen within a second');
}
