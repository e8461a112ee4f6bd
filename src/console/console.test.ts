import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../test/helpers/harness';
import { ADMIN_API_SCOPES, CONSOLE_CLIENT_ID } from '../identity/operators/control';
import { ENGAGE_ADMIN_SCOPES } from '../platform/operator-apis';
import { loadConfig } from '../platform/config';
import { ENDPOINTS } from './web/endpoints';
import { API_SCOPES } from './web/scopes';

let h: Harness;
let off: Harness;
beforeAll(async () => {
  h = await createHarness();
  off = await createHarness({ console: false });
});
afterAll(async () => {
  await h.close();
  await off.close();
});

const control = `${PUBLIC_URL}/t/control`;

describe('the console is a client of the documented APIs only', () => {
  it('every operation it may call is in the OpenAPI document, with that method', async () => {
    const doc = (await (await h.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const missing = ENDPOINTS.filter((e) => {
      const [method, path] = e.split(' ');
      return !doc.paths[path]?.[method.toLowerCase()];
    });
    expect(missing).toEqual([]);
  });

  it('asks each API for exactly the scopes the server defines for it', () => {
    expect([...API_SCOPES.identity].sort()).toEqual([...ADMIN_API_SCOPES].sort());
    expect([...API_SCOPES.engage].sort()).toEqual([...ENGAGE_ADMIN_SCOPES].sort());
  });
});

describe('serving', () => {
  it('answers the shell for every console path, with a strict policy and the config the page needs', async () => {
    for (const path of ['/console', '/console/', '/console/identity/tenants', '/console/engage/environments/prod/templates']) {
      const res = await h.request(path);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).not.toMatch(/<script>|<style>|\sstyle=|\son[a-z]+=/);
      const meta = /<meta name="engage-console" content="([^"]+)">/.exec(html)![1].replace(/&quot;/g, '"').replace(/&amp;/g, '&');
      expect(JSON.parse(meta)).toEqual({ base: '/console', issuer: control, clientId: CONSOLE_CLIENT_ID });
    }
  });

  it('lets only its callback be framed, and only by itself (the silent sign-in frame)', async () => {
    const res = await h.request('/console/callback?code=x&state=y');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('serves the hashed script and stylesheet the shell names, matching their integrity, gzipped on request', async () => {
    const html = await (await h.request('/console')).text();
    const refs = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)" integrity="sha256-([^"]+)"/g)];
    expect(refs.map((r) => r[1].split('.').pop()).sort()).toEqual(['css', 'js']);
    let gzipped = 0;
    for (const [, url, sri] of refs) {
      const plain = await h.request(url);
      expect(plain.status).toBe(200);
      expect(plain.headers.get('cache-control')).toContain('immutable');
      expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
      const body = Buffer.from(await plain.arrayBuffer());
      expect(createHash('sha256').update(body).digest('base64')).toBe(sri);
      const zipped = await h.request(url, { headers: { 'Accept-Encoding': 'gzip, br' } });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      const raw = Buffer.from(await zipped.arrayBuffer());
      gzipped += raw.length;
      expect(gunzipSync(raw).equals(body)).toBe(true);
    }
    // Issue 25: the whole console under 250 KB gzipped.
    expect(gzipped).toBeLessThan(250 * 1024);
    expect((await h.request('/console/assets/app-NOPE.js')).status).toBe(404);
    // gzip only where the client accepts it: not when refused with q=0 (RFC 9110 §12.5.3).
    const [, script] = refs.find((r) => r[1].endsWith('.js'))!;
    for (const [header, zipped] of [['gzip;q=0, br', false], ['*;q=0', false], ['br, *;q=0.5', true], ['identity', false], ['GZIP', true], ['x-gzip', true], ['gzip ; q=0.000', false]] as const) {
      const res = await h.request(script, { headers: { 'Accept-Encoding': header } });
      expect([header, res.headers.get('content-encoding')]).toEqual([header, zipped ? 'gzip' : null]);
    }
  });

  it('is not served with --no-console', async () => {
    expect((await off.request('/console')).status).toBe(404);
    expect((await off.request('/console/identity')).status).toBe(404);
  });
});

describe('its client', () => {
  it('is a public, pre-authorized, configuration-managed client of the control tenant with PKCE-only redirects under the console', async () => {
    const tenant = (await h.services.tenants.control())!;
    const client = (await h.services.clients.find(tenant.id, CONSOLE_CLIENT_ID))!;
    expect(client).toMatchObject({
      applicationType: 'WEB',
      tokenEndpointAuthMethod: 'NONE',
      consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [`${PUBLIC_URL}/console/callback`],
      postLogoutRedirectUris: [`${PUBLIC_URL}/console/signed-out`],
      configurationManaged: true,
    });
  });

  it('follows a moved console path', async () => {
    const moved = await createHarness({ consolePath: '/admin/console' });
    try {
      const tenant = (await moved.services.tenants.control())!;
      expect((await moved.services.clients.find(tenant.id, CONSOLE_CLIENT_ID))!.redirectUris).toEqual([`${PUBLIC_URL}/admin/console/callback`]);
      expect((await moved.request('/admin/console/identity')).status).toBe(200);
      expect((await moved.request('/console')).status).toBe(404);
    } finally {
      await moved.close();
    }
  });
});

describe('configuration', () => {
  it('takes a console path of plain segments outside the server own prefixes', () => {
    expect(loadConfig({ flags: { consolePath: '/ops/console' } }).consolePath).toBe('/ops/console');
    for (const bad of ['console', '/', '/console/', '/t', '/oauth2/x', '/a b', '/../x', '/.well-known']) {
      expect(() => loadConfig({ flags: { consolePath: bad } }), bad).toThrow(/consolePath/);
    }
    expect(loadConfig({ env: { ENGAGE_CONSOLE: 'false' } }).console).toBe(false);
  });
});
