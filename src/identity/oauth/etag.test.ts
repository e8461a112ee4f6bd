import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ifNoneMatchHits } from './etag';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let tenantId: string;
beforeEach(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)).id;
});
afterEach(() => h.close());

const get = (p: string, headers: Record<string, string> = {}) => h.request(p, { headers });

describe('ETag and If-None-Match on discovery and JWKS (RFC 9110 §13.1.2)', () => {
  it.each(['/t/acme/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/t/acme', '/t/acme/oauth2/jwks'])('%s', async (p) => {
    const first = await get(p);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const cacheControl = first.headers.get('cache-control');
    const body = await first.text();
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);

    const again = await get(p);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe(body);

    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get(p, { 'if-none-match': inm });
      expect({ inm, status: res.status }).toEqual({ inm, status: 304 });
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe(cacheControl);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe('');
    }
    const changed = await get(p, { 'if-none-match': '"other"' });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe(body);
  });

  it('discovery of a host-only custom issuer has its own document and validator', async () => {
    await h.services.tenants.setCustomIssuer('acme', 'https://id.acme.example', SYSTEM_ACTOR);
    const custom = await h.app.request('https://id.acme.example/.well-known/openid-configuration', { headers: { host: 'id.acme.example' } });
    const path = await get('/t/acme/.well-known/openid-configuration');
    expect(((await custom.json()) as { issuer: string }).issuer).toBe('https://id.acme.example');
    expect(custom.headers.get('etag')).not.toBe(path.headers.get('etag'));
    const again = await h.app.request('https://id.acme.example/.well-known/openid-configuration', { headers: { host: 'id.acme.example', 'if-none-match': custom.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('the JWKS validator changes with the key set: a rotation, and a RETIRING key leaving when its time is up', async () => {
    const v1 = (await get('/t/acme/oauth2/jwks')).headers.get('etag')!;
    await h.services.keys.rotate(tenantId, SYSTEM_ACTOR, { now: true });
    const rotated = await get('/t/acme/oauth2/jwks', { 'if-none-match': v1 });
    expect(rotated.status).toBe(200);
    expect(((await rotated.json()) as { keys: unknown[] }).keys).toHaveLength(2);
    const v2 = rotated.headers.get('etag')!;
    expect(v2).not.toBe(v1);
    expect((await get('/t/acme/oauth2/jwks', { 'if-none-match': v2 })).status).toBe(304);

    // No write happens when the retired key's tokens have all expired: time alone changes the set.
    h.clock.advance(Math.max(h.config.accessTokenTtl, h.config.idTokenTtl) + 1);
    const later = await get('/t/acme/oauth2/jwks', { 'if-none-match': v2 });
    expect(later.status).toBe(200);
    expect(((await later.json()) as { keys: unknown[] }).keys).toHaveLength(1);
    expect(later.headers.get('etag')).not.toBe(v2);
  });

  it('the key set is built once per catalogue version, not per request', async () => {
    const a = await h.services.keys.jwks(tenantId);
    expect(await h.services.keys.jwks(tenantId)).toBe(a);
    await h.services.keys.stage(tenantId, SYSTEM_ACTOR);
    const b = await h.services.keys.jwks(tenantId);
    expect(b).not.toBe(a);
    expect(b.keys).toHaveLength(2);
    expect(await h.services.keys.jwks(tenantId)).toBe(b);
  });
});

describe('ifNoneMatchHits', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['"abc"', true],
    ['W/"abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
  ])('%s → %s', (header, hit) => {
    expect(ifNoneMatchHits(header, '"abc"')).toBe(hit);
  });
});
