import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectViolations } from '../../../test/helpers/api-error';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { directoryFixture, type DirectoryFixture } from '../../../test/fixtures/directory';

/**
 * Issue 23 point 4: a bad body is 400 invalid_request with an error_description that names every
 * field and its rule, not only the first; other errors keep spec 03's bare `{error}`.
 */
let h: Harness;
let f: DirectoryFixture;
let admin: Awaited<ReturnType<DirectoryFixture['admin']>>;

beforeAll(async () => {
  h = await createHarness();
  f = await directoryFixture(h, 'acme');
  admin = await f.admin();
  const actor = { subject: 'test', clientId: null };
  await h.services.directory.createOrganization(f.tenantId, { slug: 'eng', displayName: 'Engineering' }, actor);
  await h.services.directory.createRole(f.tenantId, { key: 'auditor', displayName: 'Auditor', scope: 'TENANT' }, actor);
});
afterAll(() => h.close());

type Row = [name: string, path: string, body: unknown, mentions: string[]];
const rows: Row[] = [
  ['organization: bad slug and empty displayName', '/organizations', { slug: 'Not A Slug', displayName: '' }, ['slug: must match', 'displayName: must be at least 1 character']],
  ['team: slug and displayName of the wrong type', '/organizations/eng/teams', { slug: 7, displayName: false }, ['slug: must be a string', 'displayName: must be a string']],
  ['permission: bad key and an unknown property', '/permissions', { key: 'has space', displayName: 'X', extra: 1 }, ['key: must match', 'extra: is not an allowed property']],
  ['role: missing displayName and unknown scope', '/roles', { key: 'r', scope: 'GLOBAL' }, ['displayName: is required', 'scope: must be one of TENANT, ORGANIZATION, TEAM']],
  ['role permission: bad key and unknown property', '/roles/auditor/permissions', { key: '-', more: true }, ['key: must match', 'more: is not an allowed property']],
  ['member: empty subject and unknown property', '/organizations/eng/members', { subject: '', team: 'x' }, ['subject: must be at least 1 character', 'team: is not an allowed property']],
  [
    'role assignment: bad roleKey, scope and organizationId',
    '/role-assignments',
    { roleKey: '!', subject: 'someone', scope: 'WORLD', organizationId: 'not-a-uuid', teamId: null },
    ['roleKey: must match', 'scope: must be one of', 'organizationId: must be a UUID'],
  ],
];

describe('directory: a bad body names every violation', () => {
  it.each(rows)('%s', async (_name, path, body, mentions) => {
    await expectViolations(await f.call(admin.token, 'POST', path, body), mentions);
  });

  it('a body of many violations is described within a bounded length, counting those left out', async () => {
    const body: Record<string, unknown> = { slug: 'ok', displayName: 'OK' };
    for (let i = 0; i < 60; i++) body[`unknown_property_with_a_long_name_${i}`] = i;
    const res = await f.call(admin.token, 'POST', '/organizations', body);
    const got = (await res.json()) as { error: string; error_description: string };
    expect(res.status).toBe(400);
    expect(got.error_description.length).toBeLessThanOrEqual(1024);
    expect(got.error_description).toContain('unknown_property_with_a_long_name_0: is not an allowed property');
    expect(got.error_description).toMatch(/and \d+ more violations$/);
  });

  it('input it echoes is kept to printable ASCII (a control and non-ASCII become ?); a pattern keeps its backslashes', async () => {
    const res = await f.call(admin.token, 'POST', '/organizations', { slug: 'ok', displayName: 'OK', 'bad"\\é\n': 1 });
    const got = (await res.json()) as { error_description: string };
    expect(got.error_description).toBe('bad"\\??: is not an allowed property');
    const subject = await f.call(admin.token, 'POST', '/organizations/eng/members', { subject: 'has space' });
    expect(((await subject.json()) as { error_description: string }).error_description).toBe('subject: must match ^[\\x21-\\x7e]+$');
  });

  it('the declaration checks path values and the body before the service, naming every violation (issue 22 point 4)', async () => {
    const res = await f.call(admin.token, 'POST', '/organizations/Not_A_Slug/teams', { slug: 7 });
    expect([res.status, await res.json()]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'organizationSlug: must match ^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$; displayName: is required; slug: must be a string' },
    ]);
  });

  it('other errors keep the bare {error} of spec 03', async () => {
    const actor = { subject: 'test', clientId: null };
    await h.services.directory.createPermission(f.tenantId, { key: 'dup.key', displayName: 'Dup' }, actor);
    const dup = await f.call(admin.token, 'POST', '/permissions', { key: 'dup.key', displayName: 'Dup' });
    expect([dup.status, await dup.json()]).toEqual([409, { error: 'directory_operation_rejected' }]);
    const anonymous = await f.call(undefined, 'POST', '/permissions', { key: 'x', displayName: 'X' });
    expect([anonymous.status, await anonymous.json()]).toEqual([401, { error: 'invalid_token' }]);
  });
});
