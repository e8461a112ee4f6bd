import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { createFixture, exchange, type OAuthFixture } from '../../../test/fixtures/oauth';
import { ADMIN_SCOPES } from './schemas';

/**
 * Spec 03 "Authentication" for every management route: a live token of the control issuer for
 * `identity-admin-api`, the route's scope, and the operator's live permission of the same name.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;

const T = '00000000-0000-4000-8000-000000000001';
const U = '00000000-0000-4000-8000-000000000002';
const { read, manage, usersManage, usersImport, usersExport } = ADMIN_SCOPES;

/** Every route of the management table this branch serves, with the scope it needs. */
const ROUTES: [string, string, string][] = [
  ['GET', '/overview', read],
  ['GET', '/tenants', read],
  ['POST', '/tenants', manage],
  ['GET', `/tenants/${T}`, read],
  ['PUT', `/tenants/${T}`, manage],
  ['GET', `/tenants/${T}/users`, usersManage],
  ['POST', `/tenants/${T}/users`, usersManage],
  ['GET', `/tenants/${T}/users/${U}`, usersManage],
  ['PUT', `/tenants/${T}/users/${U}`, usersManage],
  ['DELETE', `/tenants/${T}/users/${U}`, usersManage],
  ['GET', `/tenants/${T}/resources`, read],
  ['POST', `/tenants/${T}/resources`, manage],
  ['GET', `/tenants/${T}/clients`, read],
  ['POST', `/tenants/${T}/clients`, manage],
  ['PUT', `/tenants/${T}/clients/web`, manage],
  ['GET', `/tenants/${T}/credentials`, read],
  ['POST', `/tenants/${T}/credentials`, manage],
  ['DELETE', `/tenants/${T}/credentials/${U}`, manage],
  ['GET', `/tenants/${T}/signing-keys`, read],
  ['POST', `/tenants/${T}/signing-keys`, manage],
  ['POST', `/tenants/${T}/signing-keys/k1/activation`, manage],
  ['POST', `/tenants/${T}/signing-keys/k1/retirement`, manage],
  ['GET', '/audit-events', read],
  // The user transfer routes (src/identity/transfer/admin-routes.ts), mounted as an extension with the same guard.
  ['GET', `/tenants/${T}/user-imports`, usersImport],
  ['POST', `/tenants/${T}/user-imports`, usersImport],
  ['GET', `/tenants/${T}/user-imports/${U}`, usersImport],
  ['GET', `/tenants/${T}/user-exports`, usersExport],
  ['POST', `/tenants/${T}/user-exports`, usersExport],
  ['GET', `/tenants/${T}/user-exports/${U}/download`, usersExport],
];

beforeAll(async () => {
  h = await createHarness();
  a = await createAdminFixture(h);
  acme = await createFixture(h, 'acme');
});
afterAll(() => h.close());

const body = async (res: Response) => [res.status, await res.json()];

describe('management API authentication (every route)', () => {
  it.each(ROUTES)('%s %s: no token, a forged one, or one of another tenant or audience is 401 invalid_token', async (method, path) => {
    const otherTenant = (await exchange(h, acme)).access_token;
    // A control-tenant token of the operator with every scope, for no resource (another audience).
    const otherAudience = await a.token(['openid'], undefined, null);
    for (const token of [undefined, 'not-a-token', otherTenant, otherAudience]) {
      const res = await a.call(method, path, token);
      expect([res.status, res.headers.get('www-authenticate'), await res.json()]).toEqual([401, 'Bearer error="invalid_token"', { error: 'invalid_token' }]);
    }
  });

  it.each(ROUTES)('%s %s: a token without the scope is 403 insufficient_scope naming %s', async (method, path, scope) => {
    const others = Object.values(ADMIN_SCOPES).filter((s) => s !== scope && !(scope === read && s === manage));
    const res = await a.call(method, path, await a.token(others));
    expect([res.status, res.headers.get('www-authenticate'), await res.json()]).toEqual([
      403, `Bearer error="insufficient_scope", scope="${scope}"`, { error: 'insufficient_scope' },
    ]);
  });

  it.each(ROUTES)('%s %s: the scope without the live permission is 403 access_denied', async (method, path, scope) => {
    const stranger = await a.newOperator(`stranger-${method}-${path.replace(/\W/g, '').slice(-40)}@example.com`, Object.values(ADMIN_SCOPES).filter((s) => s !== scope && !(scope === read && s === manage)));
    const res = await a.call(method, path, await a.token([scope], stranger.id));
    expect(await body(res)).toEqual([403, { error: 'access_denied' }]);
  });

  it('a permission removed while the token lives is 403 on the next request', async () => {
    const op = await a.newOperator('short-lived@example.com', [read]);
    const token = await a.token([read], op.id);
    expect((await a.call('GET', '/tenants', token)).status).toBe(200);
    await a.revoke(op.subject);
    expect(await body(await a.call('GET', '/tenants', token))).toEqual([403, { error: 'access_denied' }]);
  });

  it('identity.admin.manage implies the reads (with its permission)', async () => {
    const op = await a.newOperator('manager@example.com', [manage]);
    expect((await a.call('GET', '/tenants', await a.token([manage], op.id))).status).toBe(200);
  });

  it('is not served under another issuer (404 not_found) and answers no-store', async () => {
    const res = await h.request(`/t/acme/identity/admin/tenants`, { headers: { authorization: `Bearer ${await a.token()}` } });
    expect(await body(res)).toEqual([404, { error: 'not_found' }]);
    const ok = await a.call('GET', '/tenants', await a.token());
    expect(ok.headers.get('cache-control')).toBe('no-store');
  });
});

describe('administrationApi: false', () => {
  let off: Harness;
  beforeAll(async () => {
    off = await createHarness({ administrationApi: false });
  });
  afterAll(() => off.close());

  it.each(ROUTES)('%s %s is 404 administration_disabled', async (method, path) => {
    const res = await off.request(`/t/control/identity/admin${path}`, { method });
    expect(await body(res)).toEqual([404, { error: 'administration_disabled' }]);
  });
});
