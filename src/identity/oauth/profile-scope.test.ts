import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { FormDriver, redirectParams } from '../../../test/conformance/form-driver';
import { SYSTEM_ACTOR } from '../audit';
import { CALLBACK, createFixture, decodeJwt, form, pkce, post, type OAuthFixture } from '../../../test/fixtures/oauth';

/**
 * Issue 23 point 3: the OpenID Connect `profile` scope (OIDC Core §5.4). A client registered
 * with `openid email profile` signs in, and its tokens carry the profile claims a user has
 * (only updated_at: users have no name or preferred_username); a scope that no resource
 * offers is invalid_scope, never invalid_target.
 */

let h: Harness;
let f: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  await h.services.clients.create(f.tenant.tenant.id, {
    clientId: 'rp', displayName: 'Relying party', applicationType: 'WEB', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: [CALLBACK], scopes: ['openid', 'email', 'profile', 'offline_access', 'unknown.thing'], nativeAuthenticationEnabled: true,
  }, SYSTEM_ACTOR);
});
afterEach(() => h.close());

const authorize = (scope: string, challenge: string, extra: Record<string, string> = {}) =>
  `${f.issuerPath}/oauth2/authorize?` +
  new URLSearchParams({ client_id: 'rp', redirect_uri: CALLBACK, response_type: 'code', scope, state: 'st-1', nonce: 'n-1', code_challenge: challenge, code_challenge_method: 'S256', ...extra });

/** The browser flow: authorize, sign in, code exchange. */
async function signIn(scope: string) {
  const p = pkce();
  const d = new FormDriver(async (u, i) => h.app.request(u, i), 'http://engage.test');
  const res = await d.signIn(authorize(scope, p.challenge), 'ada@example.com', 'correct horse battery');
  const q = redirectParams(res);
  expect(q.error).toBeUndefined();
  const token = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'authorization_code', client_id: 'rp', code: q.code, redirect_uri: CALLBACK, code_verifier: p.verifier }));
  expect(token.status).toBe(200);
  return (await token.json()) as { access_token: string; id_token: string; refresh_token?: string; scope: string };
}

const userinfo = async (token: string) => {
  const res = await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

const updatedAtSeconds = async () => {
  const row = await h.sql.get<{ updatedAt: string }>(`SELECT updated_at AS "updatedAt" FROM users WHERE id = ?`, [f.userId]);
  return Math.floor(Date.parse(row!.updatedAt) / 1000);
};

describe('the profile scope', () => {
  it('a client registered with openid email profile signs in; userinfo and the ID token carry updated_at', async () => {
    const t = await signIn('openid email profile');
    expect(t.scope).toBe('openid email profile');
    const updatedAt = await updatedAtSeconds();
    expect(await userinfo(t.access_token)).toEqual({ sub: f.subject, email: 'ada@example.com', email_verified: true, updated_at: updatedAt });
    const id = decodeJwt(t.id_token).payload;
    expect(id).toMatchObject({ sub: f.subject, email: 'ada@example.com', email_verified: true, updated_at: updatedAt });
    // Users have no name or preferred_username: nothing is made up.
    expect(id).not.toHaveProperty('name');
    expect(id).not.toHaveProperty('preferred_username');
  });

  it('without profile there is no updated_at', async () => {
    const t = await signIn('openid email');
    expect(await userinfo(t.access_token)).toEqual({ sub: f.subject, email: 'ada@example.com', email_verified: true });
    expect(decodeJwt(t.id_token).payload).not.toHaveProperty('updated_at');
  });

  it('updated_at follows a change of the user, in userinfo and in the refreshed ID token', async () => {
    const t = await signIn('openid profile offline_access');
    const before = await updatedAtSeconds();
    expect(await userinfo(t.access_token)).toEqual({ sub: f.subject, updated_at: before });
    h.clock.advance(90);
    await h.services.users.update(f.tenant.tenant.id, f.userId, { email: 'ada.lovelace@example.com', emailVerified: true, status: 'ACTIVE' }, SYSTEM_ACTOR);
    const after = await updatedAtSeconds();
    expect(after).toBe(before + 90);
    expect(await userinfo(t.access_token)).toEqual({ sub: f.subject, updated_at: after });
    const r = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: 'rp', refresh_token: t.refresh_token! }));
    expect(r.status).toBe(200);
    const refreshed = (await r.json()) as { id_token: string };
    expect(decodeJwt(refreshed.id_token).payload).toMatchObject({ updated_at: after });
  });

  it('the native adapter opens an interaction for openid email profile', async () => {
    const res = await post(h, `${f.issuerPath}/oauth2/native/interactions`, form({
      client_id: 'rp', redirect_uri: CALLBACK, response_type: 'code', scope: 'openid email profile', state: 's', nonce: 'n',
      code_challenge: pkce().challenge, code_challenge_method: 'S256',
    }));
    expect(res.status).toBe(201);
  });

  it('discovery stays exactly spec 02 (scopes_supported is RECOMMENDED, not exhaustive)', async () => {
    const res = await h.request(`${f.issuerPath}/.well-known/openid-configuration`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.scopes_supported).toEqual(['openid', 'email', 'offline_access']);
    expect(body).not.toHaveProperty('claims_supported');
  });
});

describe('a scope without a resource', () => {
  const validate = (scope: string, client = 'rp') =>
    h.services.oauth.validateAuthorizationRequest(f.tenant, {
      client_id: client, redirect_uri: CALLBACK, response_type: 'code', scope, state: 'st-1', code_challenge: pkce().challenge, code_challenge_method: 'S256',
    });

  it('a registered scope no resource offers is invalid_scope, never invalid_target', async () => {
    expect(await validate('openid unknown.thing')).toMatchObject({ ok: false, redirect: true, error: 'invalid_scope', description: expect.stringContaining('unknown.thing') });
    const res = await h.request(authorize('openid unknown.thing', pkce().challenge));
    expect(res.status).toBe(302);
    expect(redirectParams(res)).toMatchObject({ error: 'invalid_scope', state: 'st-1' });
  });

  it('a scope some resource offers, with no resource requested, is still invalid_target (resource absent)', async () => {
    await h.services.clients.create(f.tenant.tenant.id, {
      clientId: 'bare', displayName: 'Bare', applicationType: 'WEB', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: [CALLBACK], scopes: ['openid', 'api.read', 'unknown.thing'],
    }, SYSTEM_ACTOR);
    expect(await validate('openid api.read', 'bare')).toMatchObject({ ok: false, redirect: true, error: 'invalid_target' });
    // Both at once: the unknown scope is the one to fix first.
    expect(await validate('openid api.read unknown.thing', 'bare')).toMatchObject({ ok: false, redirect: true, error: 'invalid_scope' });
  });
});
