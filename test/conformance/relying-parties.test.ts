import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, PASSWORD, seedThroughCli, startEngage, type Engage } from './engage-process';
import { FormDriver } from './form-driver';

/**
 * Real relying parties against the real executable on loopback: openid-client (confidential
 * web client) and oauth4webapi with its strict checks (public native client). Sign-in goes
 * through the HTML forms with a cookie jar; the browser test does the same in Chromium.
 */
const REDIRECT_URI = 'http://127.0.0.1/callback';
let e: Engage;
let seed: Awaited<ReturnType<typeof seedThroughCli>>;

beforeAll(async () => {
  e = await startEngage();
  seed = await seedThroughCli(e, REDIRECT_URI);
}, 180_000);
afterAll(async () => e?.stop());

/** The ID token's signature and claims, checked against the published JWKS. */
async function verifyIdToken(idToken: string, audience: string, nonce: string) {
  const jwks = createRemoteJWKSet(new URL(`${seed.issuer}/oauth2/jwks`));
  const { payload, protectedHeader } = await jwtVerify(idToken, jwks, { issuer: seed.issuer, audience, algorithms: ['RS256'] });
  expect(protectedHeader.kid).toBeTruthy();
  expect(payload.nonce).toBe(nonce);
  expect(payload.sub).toBe(seed.user.subject);
  expect(typeof payload.auth_time).toBe('number');
  return payload;
}

describe('openid-client, confidential client (client_secret_basic, EXPLICIT consent)', () => {
  let config: client.Configuration;
  const insecure = { execute: [client.allowInsecureRequests] };

  beforeAll(async () => {
    config = await client.discovery(new URL(seed.issuer), 'web', seed.webSecret, client.ClientSecretBasic(seed.webSecret), insecure);
  });

  async function authorize(d: FormDriver) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid email offline_access orders.read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      resource: API,
    });
    let res = await d.get(url.href);
    if (res.status === 200) {
      const page = await res.text();
      res = page.includes('name="password"') ? await d.submit(page, { email: 'alice@example.com', password: PASSWORD }) : await d.submit(page, { decision: 'allow' });
    }
    if (res.status === 200) res = await d.submit(await res.text(), { decision: 'allow' });
    expect(res.status).toBe(302);
    return { callback: new URL(res.headers.get('location')!), verifier, state, nonce };
  }

  it('runs discovery, the code flow with PKCE, state, nonce and iss, and validates the ID token', async () => {
    expect(config.serverMetadata().issuer).toBe(seed.issuer);
    const d = new FormDriver(fetch, e.url);
    const a = await authorize(d);
    expect(a.callback.searchParams.get('iss')).toBe(seed.issuer);
    const tokens = await client.authorizationCodeGrant(config, a.callback, { pkceCodeVerifier: a.verifier, expectedState: a.state, expectedNonce: a.nonce, idTokenExpected: true });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.claims()!.sub).toBe(seed.user.subject);
    await verifyIdToken(tokens.id_token!, 'web', a.nonce);

    const info = await client.fetchUserInfo(config, tokens.access_token, seed.user.subject);
    expect(info).toMatchObject({ sub: seed.user.subject, email: 'alice@example.com', email_verified: true });

    const rs = new client.Configuration(config.serverMetadata(), seed.credential.credentialId, seed.credential.credentialSecret, client.ClientSecretBasic(seed.credential.credentialSecret));
    client.allowInsecureRequests(rs);
    const active = await client.tokenIntrospection(rs, tokens.access_token);
    expect(active).toMatchObject({ active: true, client_id: 'web', sub: seed.user.subject, iss: seed.issuer });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    await client.tokenRevocation(config, refreshed.access_token);
    expect((await client.tokenIntrospection(rs, refreshed.access_token)).active).toBe(false);
    await client.tokenRevocation(config, refreshed.refresh_token!);
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('rejects a callback whose iss is not the issuer (RFC 9207) or whose state differs', async () => {
    const d = new FormDriver(fetch, e.url);
    const a = await authorize(d);
    const forged = new URL(a.callback);
    forged.searchParams.set('iss', 'http://127.0.0.1:1/t/evil');
    await expect(client.authorizationCodeGrant(config, forged, { pkceCodeVerifier: a.verifier, expectedState: a.state, expectedNonce: a.nonce })).rejects.toThrow();
    await expect(client.authorizationCodeGrant(config, a.callback, { pkceCodeVerifier: a.verifier, expectedState: 'other', expectedNonce: a.nonce })).rejects.toThrow();
    // The untouched callback still exchanges: the failed checks never reached the token endpoint.
    const tokens = await client.authorizationCodeGrant(config, a.callback, { pkceCodeVerifier: a.verifier, expectedState: a.state, expectedNonce: a.nonce });
    expect(tokens.access_token).toBeTruthy();
  });
});

describe('openid-client, the standard scopes openid email profile (issue 23 point 3)', () => {
  it('a client registered with openid email profile signs in; the ID token and userinfo carry updated_at', async () => {
    const secret = (await e.cliJson<{ clientSecret: string }>([
      'clients', 'create', '--tenant', 'acme', '--client-id', 'rp', '--name', 'Standard RP', '--type', 'WEB', '--auth', 'CLIENT_SECRET_BASIC',
      '--redirect-uri', REDIRECT_URI, '--scope', 'openid email profile', '--consent', 'PRE_AUTHORIZED',
    ])).clientSecret;
    const config = await client.discovery(new URL(seed.issuer), 'rp', secret, client.ClientSecretBasic(secret), { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI, scope: 'openid email profile', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, nonce,
    });
    const res = await new FormDriver(fetch, e.url).signIn(url.href, 'alice@example.com', PASSWORD);
    expect(res.status).toBe(302);
    const callback = new URL(res.headers.get('location')!);
    expect(callback.searchParams.get('error')).toBeNull();
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    expect(tokens.scope).toBe('openid email profile');

    // A user never updated: updated_at is the creation time, in seconds since the epoch.
    const updatedAt = Math.floor(Date.parse((seed.user as unknown as { createdAt: string }).createdAt) / 1000);
    const id = await verifyIdToken(tokens.id_token!, 'rp', nonce);
    expect(id).toMatchObject({ email: 'alice@example.com', email_verified: true, updated_at: updatedAt });
    const info = await client.fetchUserInfo(config, tokens.access_token, seed.user.subject);
    expect(info).toEqual({ sub: seed.user.subject, email: 'alice@example.com', email_verified: true, updated_at: updatedAt });
  });
});

describe('oauth4webapi, public client (none, PRE_AUTHORIZED)', () => {
  const opts = { [oauth.allowInsecureRequests]: true };
  const app: oauth.Client = { client_id: 'app' };
  const none = oauth.None();

  it('runs the whole flow under its strict checks', async () => {
    const issuer = new URL(seed.issuer);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...opts }));
    expect(as.code_challenge_methods_supported).toEqual(['S256']);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid email offline_access orders.read',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    }).toString();
    const res = await new FormDriver(fetch, e.url).signIn(url.href, 'alice@example.com', PASSWORD);
    expect(res.status).toBe(302);

    const params = oauth.validateAuthResponse(as, app, new URL(res.headers.get('location')!), state);
    const grant = await oauth.authorizationCodeGrantRequest(as, app, none, params, REDIRECT_URI, verifier, opts);
    const result = await oauth.processAuthorizationCodeResponse(as, app, grant, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    expect(claims.sub).toBe(seed.user.subject);
    await verifyIdToken(result.id_token!, 'app', nonce);

    const info = await oauth.processUserInfoResponse(as, app, claims.sub, await oauth.userInfoRequest(as, app, result.access_token, opts));
    expect(info.email).toBe('alice@example.com');

    const refreshed = await oauth.processRefreshTokenResponse(as, app, await oauth.refreshTokenGrantRequest(as, app, none, result.refresh_token!, opts));
    expect(refreshed.refresh_token).not.toBe(result.refresh_token);

    const rs: oauth.Client = { client_id: seed.credential.credentialId };
    const rsAuth = oauth.ClientSecretBasic(seed.credential.credentialSecret);
    const intro = await oauth.processIntrospectionResponse(as, rs, await oauth.introspectionRequest(as, rs, rsAuth, refreshed.access_token, opts));
    expect(intro).toMatchObject({ active: true, client_id: 'app', sub: seed.user.subject, aud: 'orders-api' });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, app, none, refreshed.refresh_token!, opts));
    const after = await oauth.refreshTokenGrantRequest(as, app, none, refreshed.refresh_token!, opts);
    await expect(oauth.processRefreshTokenResponse(as, app, after)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
