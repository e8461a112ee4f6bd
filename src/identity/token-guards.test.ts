import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { createHarness, type Harness } from '../../test/helpers/harness';
import { createFamilyApp, familyOnError } from '../platform/http/family';
import { requestContext } from '../platform/http/request';
import { silentLogger } from '../platform/logger';
import { resolveTenant } from './issuer';
import { ApiError } from '../platform/http/errors';
import { API_AUDIENCE, createFixture, exchange, type OAuthFixture } from '../../test/fixtures/oauth';
import { createTokenGuards, type TokenEnv } from './token-guards';
import { authorizationOf } from '../platform/http/guards';

let h: Harness;
let f: OAuthFixture;
const granted = new Set<string>();
let app: Hono;

beforeAll(async () => {
  h = await createHarness();
  f = await createFixture(h);
  const guards = createTokenGuards({
    liveAccessToken: (tenant, token) => h.services.oauth.liveAccessToken(tenant, token),
    hasPermission: (p, key) => granted.has(`${p.subject}:${key}`),
  });
  const api = createFamilyApp<TokenEnv>('api', { prefixes: ['/t/:tenantSegment/*'] });
  api.app.use('/t/:tenantSegment/*', resolveTenant(h.services.tenants, () => new ApiError(404, 'unknown_tenant')));
  api.app.get('/t/:tenantSegment/things', guards.bearerToken({ audience: () => API_AUDIENCE, scopes: ['api.read'] }), guards.permission('things.read'), (c) =>
    c.json(c.get('principal')),
  );
  api.app.get('/t/:tenantSegment/writes', guards.bearerToken({ audience: () => API_AUDIENCE, scopes: ['api.write'] }), (c) => c.json({}));
  app = new Hono();
  app.use(requestContext(silentLogger));
  app.onError(familyOnError);
  app.route('/', api.close());
});
afterAll(() => h.close());

const call = (path: string, token?: string) => app.request(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('bearerToken + permission guards', () => {
  it('hand the handler the principal of a live token with the audience, scope and permission', async () => {
    const t = await exchange(h, f);
    granted.add(`${f.subject}:things.read`);
    const res = await call('/t/acme/things', t.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ tenantId: f.tenant.tenant.id, subject: f.subject, clientId: 'mobile', scope: expect.stringContaining('api.read') });
  });

  it('answer 401 invalid_token without a token, with a forged one, or with one of another audience', async () => {
    const userinfoOnly = await exchange(h, f, { scope: ['openid'], resource: null });
    for (const token of [undefined, 'not-a-token', userinfoOnly.access_token]) {
      const res = await call('/t/acme/things', token);
      expect([res.status, res.headers.get('www-authenticate'), await res.json()]).toEqual([401, 'Bearer error="invalid_token"', { error: 'invalid_token' }]);
    }
  });

  it('answer 403 insufficient_scope naming the missing scope', async () => {
    const t = await exchange(h, f);
    const res = await call('/t/acme/writes', t.access_token);
    expect([res.status, res.headers.get('www-authenticate'), await res.json()]).toEqual([
      403,
      'Bearer error="insufficient_scope", scope="api.write"',
      { error: 'insufficient_scope' },
    ]);
  });

  it('answer 403 access_denied once the permission is removed, although the token is unexpired', async () => {
    const t = await exchange(h, f);
    granted.add(`${f.subject}:things.read`);
    expect((await call('/t/acme/things', t.access_token)).status).toBe(200);
    granted.delete(`${f.subject}:things.read`);
    const res = await call('/t/acme/things', t.access_token);
    expect([res.status, await res.json()]).toEqual([403, { error: 'access_denied' }]);
  });

  it('refuse a revoked token at once', async () => {
    const t = await exchange(h, f);
    granted.add(`${f.subject}:things.read`);
    expect((await call('/t/acme/things', t.access_token)).status).toBe(200);
    await h.services.oauth.revoke(f.tenant, (await h.services.clients.find(f.tenant.tenant.id, 'mobile'))!, t.access_token);
    const res = await call('/t/acme/things', t.access_token);
    expect([res.status, await res.json()]).toEqual([401, { error: 'invalid_token' }]);
  });
});

describe('authorizationOf', () => {
  const app = new Hono();
  app.get('/', (c) => c.text(String(authorizationOf(c))));
  const withRaw = (rawHeaders: string[]) =>
    app.request('/', {}, { incoming: { headers: { authorization: rawHeaders[1] }, rawHeaders } });

  it('is the header when sent once', async () => {
    expect(await (await withRaw(['Authorization', 'Bearer a', 'Host', 'x'])).text()).toBe('Bearer a');
  });

  it('is ambiguous when sent on two lines, whatever their case', async () => {
    expect(await (await withRaw(['Authorization', 'Bearer a', 'authorization', 'Bearer b'])).text()).toBe('ambiguous');
  });
});
