import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, redirectParams } from '../../../test/conformance/form-driver';
import { PASSWORD, pkce, seedTenant } from '../../../test/conformance/fixtures';
import { redirectUriRegistered } from './redirect-uri';
import { SYSTEM_ACTOR } from '../audit';

describe('redirectUriRegistered (RFC 8252 §7.3 loopback ports for NATIVE clients)', () => {
  const registered = ['http://127.0.0.1/callback', 'http://[::1]/cb?x=1', 'http://localhost/callback', 'com.example.app:/cb'];
  const native = { applicationType: 'NATIVE' as const, redirectUris: registered };
  const web = { applicationType: 'WEB' as const, redirectUris: registered };

  it.each([
    ['exact', 'http://127.0.0.1/callback', true, true],
    ['IPv4 loopback, any port', 'http://127.0.0.1:51234/callback', true, false],
    ['IPv6 loopback, any port, query kept', 'http://[::1]:8080/cb?x=1', true, false],
    ['port 65535', 'http://127.0.0.1:65535/callback', true, false],
    ['port out of range', 'http://127.0.0.1:65536/callback', false, false],
    ['port 0', 'http://127.0.0.1:0/callback', false, false],
    ['other path', 'http://127.0.0.1:51234/other', false, false],
    ['other query', 'http://[::1]:8080/cb?x=2', false, false],
    ['trailing slash', 'http://127.0.0.1:51234/callback/', false, false],
    ['https', 'https://127.0.0.1:51234/callback', false, false],
    ['localhost with a port', 'http://localhost:51234/callback', false, false],
    ['another loopback address', 'http://127.0.0.2:51234/callback', false, false],
    ['userinfo', 'http://x@127.0.0.1:51234/callback', false, false],
    ['fragment', 'http://127.0.0.1:51234/callback#f', false, false],
  ])('%s: %s → native %s, web %s', (_name, uri, forNative, forWeb) => {
    expect(redirectUriRegistered(native, uri)).toBe(forNative);
    expect(redirectUriRegistered(web, uri)).toBe(forWeb);
  });
});

describe('a native app on a loopback port, through authorize and the token endpoint', () => {
  let h: Harness;
  let seed: Awaited<ReturnType<typeof seedTenant>>;
  beforeEach(async () => {
    h = await createHarness();
    seed = await seedTenant(h);
    for (const [clientId, applicationType] of [['desktop', 'NATIVE'], ['webapp', 'WEB']] as const) {
      await h.services.clients.create(seed.tenantId, {
        clientId, displayName: clientId, applicationType, tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
        redirectUris: ['http://127.0.0.1/callback', 'http://localhost/callback'], scopes: ['openid'],
      }, SYSTEM_ACTOR);
    }
  });
  afterEach(() => h.close());

  const authorize = (clientId: string, redirectUri: string, challenge: string) =>
    `/t/acme/oauth2/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's1', code_challenge: challenge, code_challenge_method: 'S256' })}`;
  const token = (redirectUri: string, code: string, verifier: string) =>
    h.request('/t/acme/oauth2/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'desktop', code, redirect_uri: redirectUri, code_verifier: verifier }),
    });

  it('the port the app chose is accepted at authorize and must be sent again, exactly, at the token endpoint', async () => {
    const p = pkce();
    const uri = 'http://127.0.0.1:51234/callback';
    const done = await new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test').signIn(authorize('desktop', uri, p.challenge), 'alice@example.com', PASSWORD);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')!.startsWith(uri + '?')).toBe(true);
    const { code } = redirectParams(done);

    for (const other of ['http://127.0.0.1:51235/callback', 'http://127.0.0.1/callback']) {
      const res = await token(other, code, p.verifier);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'redirect_uri does not match the authorization request' });
    }
    const ok = await token(uri, code, p.verifier);
    expect(ok.status).toBe(200);
  });

  it.each([
    ['a WEB client', 'webapp', 'http://127.0.0.1:51234/callback'],
    ['localhost', 'desktop', 'http://localhost:51234/callback'],
  ])('%s gets no port latitude: 400, never redirected', async (_name, clientId, uri) => {
    const res = await h.request(authorize(clientId, uri, pkce().challenge));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});
