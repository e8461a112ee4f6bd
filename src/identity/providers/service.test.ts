import { generateKeyPair, SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { FormDriver, redirectParams } from '../../../test/conformance/form-driver';
import { appWith } from '../../../test/fixtures/native';
import { CALLBACK, createFixture, exchange, FORM, pkce, type OAuthFixture } from '../../../test/fixtures/oauth';
import type { ResolvedTenant } from '../tenants/service';
import { createProviderService, ID_TOKEN_SKEW, MAX_ID_TOKEN_AGE, type SocialSignIn } from './service';
import { UPSTREAM_KEYS } from './upstream-keys';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Social sign-in with ID tokens from a real OpenID Connect issuer: another engage tenant of the
 * same server ("upstream"), reached through its HTTP routes (discovery, JWKS, token endpoint).
 */
let h: Harness;
let up: OAuthFixture;
let shop: ResolvedTenant; // SELF_SERVICE
let corp: ResolvedTenant; // CONTROLLED
let fetched: string[];
let providers: ReturnType<typeof createProviderService>;
const NONCE = 'n-social-0001';

beforeEach(async () => {
  h = await createHarness();
  up = await createFixture(h, 'upstream');
  await h.services.tenants.create({ slug: 'shop', registrationMode: 'SELF_SERVICE' }, SYSTEM_ACTOR);
  await h.services.tenants.create({ slug: 'corp' }, SYSTEM_ACTOR);
  shop = (await h.services.tenants.resolveByPath('shop'))!;
  corp = (await h.services.tenants.resolveByPath('corp'))!;
  fetched = [];
  // The server's own routes answer the discovery and JWKS fetches (engage.test is not on the network).
  providers = createProviderService({
    store: h.services.store,
    clock: h.clock,
    users: h.services.users,
    publicUrl: PUBLIC_URL,
    fetch: async (url, init) => {
      fetched.push(new URL(url).pathname);
      return h.app.request(url, init);
    },
  });
  for (const t of [shop, corp]) await providers.add(t.tenant.id, { name: 'upstream', issuer: up.tenant.issuer, audiences: ['mobile', 'web'] }, SYSTEM_ACTOR);
});
afterEach(() => h.close());

/**
 * An ID token from the upstream issuer by the authorization code flow (public client `mobile`),
 * a second later than the last one: with the fixed clock, two sign-ins in the same second with
 * the same nonce would make the same token, which the replay cache accepts once (issue 21).
 */
async function idToken(opts: { userId?: string; nonce?: string } = {}): Promise<string> {
  h.clock.advance(1);
  const t = await exchange(h, { ...up, userId: opts.userId ?? up.userId }, { scope: ['openid', 'email'], resource: null, nonce: opts.nonce ?? NONCE });
  return t.id_token!;
}

const input = (token: string, over: Partial<SocialSignIn> = {}): SocialSignIn => ({ provider: 'upstream', idToken: token, nonce: NONCE, audience: 'mobile', ...over });

async function upstreamUser(email: string, emailVerified: boolean) {
  return (await h.services.users.create(up.tenant.tenant.id, { email, emailVerified }, SYSTEM_ACTOR)).id;
}

/** A token signed with the upstream tenant's own current key, with any claims. */
async function signedByUpstream(claims: Record<string, unknown>) {
  const k = (await h.services.keys.signingKey(up.tenant.tenant.id))!;
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: k.kid }).sign(k.key);
}

describe('signInWithIdToken', () => {
  it('takes an ID token the upstream issued through its sign-in page, authorization code flow and PKCE', async () => {
    const d = new FormDriver(async (u, i) => h.app.request(u, i), PUBLIC_URL);
    const p = pkce();
    const q = new URLSearchParams({ client_id: 'mobile', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email', state: 's1', nonce: NONCE, code_challenge: p.challenge, code_challenge_method: 'S256' });
    const back = await d.signIn(`/t/upstream/oauth2/authorize?${q}`, 'ada@example.com', 'correct horse battery');
    const { code, state } = redirectParams(back);
    expect(state).toBe('s1');
    const res = await h.request('/t/upstream/oauth2/token', {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: p.verifier, client_id: 'mobile' }),
    });
    expect(res.status).toBe(200);
    const { id_token } = (await res.json()) as { id_token: string };
    const { userId } = await providers.signInWithIdToken(shop, input(id_token));
    expect((await h.services.users.findById(shop.tenant.id, userId))?.email).toBe('ada@example.com');
  });

  it('a new person on a SELF_SERVICE tenant gets an active account with a verified email, linked; the next sign-in finds it', async () => {
    const token = await idToken();
    const { userId } = await providers.signInWithIdToken(shop, input(token));
    const user = (await h.services.users.findById(shop.tenant.id, userId))!;
    expect(user).toMatchObject({ email: 'ada@example.com', emailVerified: true, status: 'ACTIVE', passwordHash: null });
    const links = await h.sql.all<{ subject: string; issuer: string; provider: string }>('SELECT subject, issuer, provider FROM user_identities WHERE user_id = ?', [userId]);
    expect(links).toEqual([{ subject: up.subject, issuer: up.tenant.issuer, provider: 'upstream' }]);
    expect(await providers.signInWithIdToken(shop, input(await idToken()))).toEqual({ userId });
    expect(fetched).toEqual(['/t/upstream/.well-known/openid-configuration', '/t/upstream/oauth2/jwks']);
  });

  it('a new person on a CONTROLLED tenant: registration_closed, and no account', async () => {
    await expect(providers.signInWithIdToken(corp, input(await idToken()))).rejects.toMatchObject({ code: 'registration_closed', kind: 'forbidden' });
    expect(await h.services.users.list(corp.tenant.id)).toEqual([]);
  });

  it('an unlinked identity whose email has an account: account_link_required, nothing linked', async () => {
    await h.services.users.create(shop.tenant.id, { email: 'ADA@example.com', emailVerified: true }, SYSTEM_ACTOR);
    await expect(providers.signInWithIdToken(shop, input(await idToken()))).rejects.toMatchObject({ code: 'account_link_required', kind: 'conflict' });
    expect(await h.sql.all('SELECT * FROM user_identities')).toEqual([]);
  });

  it('an unverified upstream email: email_verification_required (even when the address has an account)', async () => {
    const userId = await upstreamUser('eve@example.com', false);
    await expect(providers.signInWithIdToken(shop, input(await idToken({ userId })))).rejects.toMatchObject({ code: 'email_verification_required', kind: 'conflict' });
    await h.services.users.create(shop.tenant.id, { email: 'eve@example.com' }, SYSTEM_ACTOR);
    await expect(providers.signInWithIdToken(shop, input(await idToken({ userId })))).rejects.toMatchObject({ code: 'email_verification_required' });
    // Without the email scope there is no email at all.
    const t = await exchange(h, up, { scope: ['openid'], resource: null, nonce: NONCE });
    await expect(providers.signInWithIdToken(shop, input(t.id_token!))).rejects.toMatchObject({ code: 'email_verification_required' });
  });

  it('an unconfigured provider, or one of another tenant: provider_unavailable', async () => {
    const token = await idToken();
    await expect(providers.signInWithIdToken(shop, input(token, { provider: 'google' }))).rejects.toMatchObject({ code: 'provider_unavailable', kind: 'forbidden' });
    const other = (await h.services.tenants.resolveByPath('upstream'))!;
    await expect(providers.signInWithIdToken(other, input(token))).rejects.toMatchObject({ code: 'provider_unavailable' });
    await providers.remove(shop.tenant.id, 'upstream', SYSTEM_ACTOR);
    await expect(providers.signInWithIdToken(shop, input(token))).rejects.toMatchObject({ code: 'provider_unavailable' });
  });

  it('a linked user who is disabled: invalid_credentials', async () => {
    const { userId } = await providers.signInWithIdToken(shop, input(await idToken()));
    await h.sql.run(`UPDATE users SET status = 'DISABLED' WHERE id = ?`, [userId]);
    await expect(providers.signInWithIdToken(shop, input(await idToken()))).rejects.toMatchObject({ code: 'invalid_credentials', kind: 'unauthenticated' });
  });

  it('rejects with invalid_credentials: wrong nonce, wrong or unconfigured audience, expired, iat in the future, forged, tampered, garbage', async () => {
    const token = await idToken();
    const reject = (i: SocialSignIn) => expect(providers.signInWithIdToken(shop, i)).rejects.toMatchObject({ code: 'invalid_credentials' });
    await reject(input(token, { nonce: 'another-nonce' }));
    await reject(input(token, { nonce: '' }));
    await reject(input(token, { audience: 'web' })); // configured, but not the token's audience
    await reject(input(token, { audience: 'elsewhere' })); // not configured
    await reject(input(await idToken({ nonce: 'other' })));
    await reject(input('not.a.jwt'));
    const [hd, body, sig] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    await reject(input(`${hd}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${sig}`));
    const now = h.clock.nowSeconds();
    await reject(input(await signedByUpstream({ ...claims, iat: now + 600, exp: now + 1200 })));
    await reject(input(await signedByUpstream({ ...claims, nonce: undefined })));
    await reject(input(await signedByUpstream({ ...claims, iss: `${PUBLIC_URL}/t/shop` })));
    // Forged: a key of our own, with the upstream's kid and with an unknown one.
    const { privateKey } = await generateKeyPair('RS256');
    const kid = (await h.services.keys.signingKey(up.tenant.tenant.id))!.kid;
    await reject(input(await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey)));
    await reject(input(await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'made-up' }).sign(privateKey)));
    await reject(input(await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid }).sign(new Uint8Array(32))));
    // Still valid now: then expired once its exp (plus the skew) has passed.
    await expect(providers.signInWithIdToken(shop, input(token))).resolves.toHaveProperty('userId');
    h.clock.advance(h.config.idTokenTtl + 120);
    await reject(input(token));
  });

  it('refetches the JWKS for an unknown kid (key rotation) at most once a minute: made-up kids cannot make it fetch on every request', async () => {
    await providers.signInWithIdToken(shop, input(await idToken()));
    expect(fetched).toHaveLength(2);
    const { privateKey } = await generateKeyPair('RS256');
    const token = await idToken();
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    h.clock.advance(UPSTREAM_KEYS.refreshCooldownSeconds);
    for (let i = 0; i < 5; i++) {
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: `attacker-${i}` }).sign(privateKey);
      await expect(providers.signInWithIdToken(shop, input(forged))).rejects.toMatchObject({ code: 'invalid_credentials' });
    }
    expect(fetched).toHaveLength(4); // one refetch (discovery + JWKS) for five unknown kids
    // The upstream rotates its key: within the cool-down the new kid is not known yet...
    await h.services.keys.rotate(up.tenant.tenant.id, SYSTEM_ACTOR, { now: true });
    const rotated = await idToken();
    await expect(providers.signInWithIdToken(shop, input(rotated))).rejects.toMatchObject({ code: 'invalid_credentials' });
    // ...after it, one refetch finds it.
    h.clock.advance(UPSTREAM_KEYS.refreshCooldownSeconds);
    await expect(providers.signInWithIdToken(shop, input(rotated))).resolves.toHaveProperty('userId');
    expect(fetched).toHaveLength(6);
  });

  it('an unreachable issuer is temporarily_unavailable, not a rejected proof, and is not fetched again at once', async () => {
    let up = false;
    let calls = 0;
    const flaky = createProviderService({
      store: h.services.store, clock: h.clock, users: h.services.users, publicUrl: PUBLIC_URL,
      fetch: async (u, i) => {
        calls++;
        return up ? h.app.request(u, i) : new Response('no', { status: 502 });
      },
    });
    const token = await idToken();
    await expect(flaky.signInWithIdToken(shop, input(token))).rejects.toMatchObject({ code: 'temporarily_unavailable', kind: 'unavailable' });
    await expect(flaky.signInWithIdToken(shop, input(token))).rejects.toMatchObject({ code: 'temporarily_unavailable' });
    expect(calls).toBe(1);
    up = true;
    h.clock.advance(UPSTREAM_KEYS.failureBackoffSeconds);
    const { userId } = await flaky.signInWithIdToken(shop, input(token));
    // Past the keys' age, an unreachable issuer leaves the old keys in use.
    up = false;
    h.clock.advance(UPSTREAM_KEYS.maxAgeSeconds);
    expect(await flaky.signInWithIdToken(shop, input(await idToken()))).toEqual({ userId });
  });

  it('parallel first sign-ins of one identity create one account', async () => {
    const nonces = ['n-1', 'n-2', 'n-3', 'n-4'];
    const tokens = await Promise.all(nonces.map((nonce) => idToken({ nonce })));
    const other = TEST_ENGINE === 'sqlite' ? h.services.store : (await h.otherProcess()).store;
    const second = createProviderService({ store: other, clock: h.clock, users: h.services.users, publicUrl: PUBLIC_URL, fetch: async (u, i) => h.app.request(u, i) });
    const results = await Promise.all(tokens.map((t, i) => (i % 2 ? second : providers).signInWithIdToken(shop, input(t, { nonce: nonces[i] }))));
    expect(new Set(results.map((r) => r.userId)).size).toBe(1);
    expect(await h.services.users.list(shop.tenant.id)).toHaveLength(1);
  });
});

describe('replay of an upstream ID token (issue 21)', () => {
  /** A native client of `shop`, and the app whose native adapter uses this test's provider service. */
  async function nativeApp() {
    await h.services.clients.create(shop.tenant.id, {
      clientId: 'app', displayName: 'App', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [CALLBACK], scopes: ['openid', 'email'], nativeAuthenticationEnabled: true,
    }, SYSTEM_ACTOR);
    const request = appWith(h, { providers });
    const post = (route: string, fields: Record<string, string>) =>
      request(`/t/shop/oauth2/native${route}`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams(fields).toString() });
    return async (token: string) => {
      const opened = await post('/interactions', {
        client_id: 'app', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email', state: 'st', nonce: 'app-nonce',
        code_challenge: pkce().challenge, code_challenge_method: 'S256',
      });
      expect(opened.status).toBe(201);
      const { interactionId } = (await opened.json()) as { interactionId: string };
      return post('/social', { interaction_id: interactionId, provider: 'upstream', id_token: token, nonce: NONCE, audience: 'mobile' });
    };
  }

  it('one ID token signs in on one interaction only: the second and third are invalid_credentials; a new token works', async () => {
    const social = await nativeApp();
    const token = await idToken();
    const first = await social(token);
    expect(first.status).toBe(200);
    expect(await first.json()).toHaveProperty('code');
    for (let i = 0; i < 2; i++) {
      const again = await social(token);
      expect([again.status, await again.json()]).toEqual([401, { error: 'invalid_credentials' }]);
    }
    // A new sign-in upstream: another token, accepted.
    expect((await social(await idToken())).status).toBe(200);
  });

  it('holds across processes on one database, and for a token whose signature is re-encoded', async () => {
    const token = await idToken();
    await providers.signInWithIdToken(shop, input(token));
    const other = await h.otherProcess();
    const elsewhere = createProviderService({ store: other.store, clock: h.clock, users: h.services.users, publicUrl: PUBLIC_URL, fetch: async (u, i) => h.app.request(u, i) });
    await expect(elsewhere.signInWithIdToken(shop, input(token))).rejects.toMatchObject({ code: 'invalid_credentials' });
    // Another tenant configured with the same provider: the token was spent upstream-wide.
    await expect(elsewhere.signInWithIdToken(corp, input(token))).rejects.toMatchObject({ code: 'invalid_credentials' });
    // The signature's last base64url character carries 2 unused bits: a different string, the same signature.
    const [hd, body, sig] = token.split('.');
    const last = sig.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = `${hd}.${body}.${sig.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(twin).not.toBe(token);
    await expect(providers.signInWithIdToken(shop, input(twin))).rejects.toMatchObject({ code: 'invalid_credentials' });
  });

  it('keyed by issuer and jti when the token has one; kept until the token expires, then swept', async () => {
    const claims = JSON.parse(Buffer.from((await idToken()).split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    await providers.signInWithIdToken(shop, input(await signedByUpstream({ ...claims, jti: 'upstream-jti-1' })));
    // Other bytes (another iat), the same jti: refused.
    const sameJti = await signedByUpstream({ ...claims, iat: (claims.iat as number) - 1, jti: 'upstream-jti-1' });
    await expect(providers.signInWithIdToken(shop, input(sameJti))).rejects.toMatchObject({ code: 'invalid_credentials' });
    await expect(providers.signInWithIdToken(shop, input(await signedByUpstream({ ...claims, jti: 'upstream-jti-2' })))).resolves.toHaveProperty('userId');
    const rows = async () => Number((await h.sql.get<{ n: number | string }>('SELECT COUNT(*) AS "n" FROM upstream_token_uses'))!.n);
    expect(await rows()).toBe(2);
    h.clock.advance(h.config.idTokenTtl + 2 * 60 + 1);
    expect(await h.services.providers.sweepTokenUses()).toBe(2);
    expect(await rows()).toBe(0);
  });

  it('a long-lived token is held at most 24 h after its iat, and refused once older (the cache stays bounded)', async () => {
    const claims = JSON.parse(Buffer.from((await idToken()).split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    const now = h.clock.nowSeconds();
    const longLived = await signedByUpstream({ ...claims, iat: now, exp: now + 7 * 86400 });
    await expect(providers.signInWithIdToken(shop, input(longLived))).resolves.toHaveProperty('userId');
    const row = await h.sql.get<{ expiresAt: number | string }>('SELECT expires_at AS "expiresAt" FROM upstream_token_uses');
    expect(Number(row!.expiresAt)).toBe(now + MAX_ID_TOKEN_AGE + ID_TOKEN_SKEW + 1);
    await expect(providers.signInWithIdToken(shop, input(longLived))).rejects.toMatchObject({ code: 'invalid_credentials' });
    // Past the cap its entry is swept, and the token, though its exp is days away, is too old.
    h.clock.advance(MAX_ID_TOKEN_AGE + ID_TOKEN_SKEW + 1);
    expect(await providers.sweepTokenUses()).toBe(1);
    await expect(providers.signInWithIdToken(shop, input(longLived))).rejects.toMatchObject({ code: 'invalid_credentials' });
  });
});

describe('providers add, list, remove', () => {
  it('validates, lists per tenant, refuses duplicates and unknown names', async () => {
    expect(await providers.list(shop.tenant.id)).toEqual([{ name: 'upstream', issuer: up.tenant.issuer, audiences: ['mobile', 'web'], createdAt: h.clock.now().toISOString() }]);
    await expect(providers.add(shop.tenant.id, { name: 'upstream', issuer: 'https://accounts.google.com', audiences: ['x'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'provider_conflict' });
    await expect(providers.add(shop.tenant.id, { name: 'Bad Name', issuer: 'https://accounts.google.com', audiences: ['x'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(providers.add(shop.tenant.id, { name: 'g', issuer: 'ftp://x', audiences: ['x'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(providers.add(shop.tenant.id, { name: 'g', issuer: 'https://accounts.google.com', audiences: [] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    await providers.add(shop.tenant.id, { name: 'google', issuer: 'https://accounts.google.com', audiences: ['a', 'a', 'b'] }, SYSTEM_ACTOR);
    expect((await providers.list(shop.tenant.id)).map((p) => [p.name, p.audiences])).toEqual([['google', ['a', 'b']], ['upstream', ['mobile', 'web']]]);
    expect((await providers.list(corp.tenant.id)).map((p) => p.name)).toEqual(['upstream']);
    await expect(providers.remove(shop.tenant.id, 'nope', SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'unknown_provider' });
    await providers.remove(shop.tenant.id, 'google', SYSTEM_ACTOR);
    expect((await providers.list(shop.tenant.id)).map((p) => p.name)).toEqual(['upstream']);
  });

  it('plain-http issuers only where engage itself runs on plain http', async () => {
    const prod = createProviderService({ store: h.services.store, clock: h.clock, users: h.services.users, publicUrl: 'https://id.example.com' });
    await expect(prod.add(shop.tenant.id, { name: 'plain', issuer: 'http://idp.example.com', audiences: ['x'] }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
