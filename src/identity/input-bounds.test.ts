import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminFixture, type AdminFixture } from '../../test/helpers/admin';
import { createHarness, type Harness } from '../../test/helpers/harness';
import { directoryFixture, type DirectoryFixture } from '../../test/fixtures/directory';
import { createNativeFixture, nativePost, openInteraction, type NativeFixture } from '../../test/fixtures/native';
import { FORM } from '../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from './audit';

/**
 * Issue 21, points 3 and 11, on the management, directory, native and OAuth routes: bodies nested
 * thousands of levels deep and NUL characters (U+0000), which PostgreSQL's text cannot hold, are
 * answered the same on both engines (400 invalid_request, nothing written), never a 500.
 */
let h: Harness;
let admin: AdminFixture;
let token: string;
let dir: DirectoryFixture;
let dirAdmin: { token: string };
let native: NativeFixture;
beforeAll(async () => {
  h = await createHarness();
  admin = await createAdminFixture(h);
  token = await admin.token();
  dir = await directoryFixture(h, 'acme');
  dirAdmin = await dir.admin();
  native = await createNativeFixture(h, { slug: 'app' });
});
afterAll(() => h.close());

const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
const count = async (table: string, where = '1 = 1', params: unknown[] = []) => (await h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params))!.n;
const mgmt = (method: string, path: string, body: string) =>
  h.request(`${admin.root}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });

/** 400 invalid_request whose error_description (issue 23) starts with the offending field. */
async function invalidRequest(res: Response, field: string) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: string; error_description: string };
  expect(body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  expect(body.error_description.startsWith(`${field}: `)).toBe(true);
}

describe('JSON depth (point 3)', () => {
  it('an import body nested 5,000 levels: 400 invalid_request, no job created', async () => {
    const tenantId = (await h.services.tenants.create({ slug: 'deep' }, SYSTEM_ACTOR)).id;
    const record = `{"externalId":"e1","email":"u1@example.com","emailVerified":true,"active":true,"extra":${nested(5000)}}`;
    const body = `{"schemaVersion":1,"source":"legacy","mode":"CREATE_ONLY","idempotencyKey":"k1","records":[${record}]}`;
    await invalidRequest(await mgmt('POST', `/tenants/${tenantId}/user-imports`, body), 'records');
    expect(await count('user_transfer_jobs')).toBe(0);
    expect(await count('users', 'tenant_id = ?', [tenantId])).toBe(0);
  });

  it('a management body nested 5,000 levels: 400 invalid_request, no user', async () => {
    const before = await count('users');
    await invalidRequest(await mgmt('POST', `/tenants/${admin.controlId}/users`, `{"email":"deep@example.com","emailVerified":${nested(5000, 'true')}}`), 'emailVerified');
    expect(await count('users')).toBe(before);
  });

  it('a directory body nested 5,000 levels: 400 invalid_request, no organization', async () => {
    const res = await dir.call(dirAdmin.token, 'POST', '/organizations', `{"slug":"deep","displayName":${nested(5000, '"x"')}}`);
    await invalidRequest(res, 'displayName');
    expect(await count('directory_organizations', 'tenant_id = ?', [dir.tenantId])).toBe(0);
  });
});

describe('NUL characters (point 11)', () => {
  it('management: an email with \\u0000 is 400 invalid_request, no user', async () => {
    const before = await count('users');
    await invalidRequest(await mgmt('POST', `/tenants/${admin.controlId}/users`, JSON.stringify({ email: 'nul\u0000@example.com' })), 'email');
    expect(await count('users')).toBe(before);
  });

  it('directory: a displayName with \\u0000 is 400 invalid_request, no organization', async () => {
    const res = await dir.call(dirAdmin.token, 'POST', '/organizations', { slug: 'nul', displayName: 'Nul\u0000Org' });
    await invalidRequest(res, 'displayName');
    expect(await count('directory_organizations', 'tenant_id = ?', [dir.tenantId])).toBe(0);
  });

  it('management: a query filter with %00 is 400 invalid_request', async () => {
    const res = await h.request(`${admin.root}/audit-events?action=user.created%00`, { headers: { authorization: `Bearer ${token}` } });
    await invalidRequest(res, 'action');
  });

  it('management: a path value with %00 is 400 invalid_request', async () => {
    const res = await h.request(`${admin.root}/tenants/${admin.controlId}/users/ab%00cd`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await invalidRequest(res, 'path');
    // The engagement administration API's paths likewise, even without a token (refused before any route runs).
    const engage = await h.request('/t/control/engage/admin/environments/%00');
    expect(engage.headers.get('cache-control')).toBe('no-store');
    await invalidRequest(engage, 'path');
  });

  it('native: an email with %00 is 400 invalid_request', async () => {
    const { interactionId } = await openInteraction(h.request, native);
    const res = await nativePost(h.request, native, '/password', { interaction_id: interactionId, email: 'ada\u0000@example.com', password: 'x' });
    await invalidRequest(res, 'email');
  });

  it('OAuth token endpoint: a client_id with %00 is 400 invalid_request', async () => {
    const res = await h.request(`/t/${native.slug}/oauth2/token`, { method: 'POST', headers: { 'content-type': FORM }, body: 'grant_type=authorization_code&code=x&client_id=app%00' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('the store refuses NUL in any text parameter on both engines (the last line behind the readers)', async () => {
    await expect(h.sql.get('SELECT id FROM users WHERE email = ?', ['a\u0000b'])).rejects.toMatchObject({ kind: 'invalid', code: 'invalid_request' });
    await expect(h.sql.get('SELECT id FROM users WHERE email = @e', { e: 'a\u0000b' })).rejects.toMatchObject({ kind: 'invalid', code: 'invalid_request' });
  });
});
