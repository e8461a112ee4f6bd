import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { API, API_AUDIENCE, basic, CALLBACK, createFixture, exchange, form, issueCode, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

let h: Harness;
let f: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
});
afterEach(() => h.close());

const userinfo = (token: string | undefined, init: RequestInit = {}) =>
  h.request(`${f.issuerPath}/oauth2/userinfo`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) } });
const introspect = (token: string, auth = basic(f.credentialId, f.credentialSecret), extra: Record<string, string> = {}) =>
  post(h, `${f.issuerPath}/oauth2/introspect`, form({ token, ...extra }), { authorization: auth });
const revoke = (token: string, clientId = f.publicClient) => post(h, `${f.issuerPath}/oauth2/revoke`, form({ token, client_id: clientId }));

async function expectInvalidToken(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(await res.json()).toEqual({ error: 'invalid_token' });
}

describe('userinfo', () => {
  it('GET and POST return sub, email and email_verified', async () => {
    const t = await exchange(h, f);
    for (const res of [await userinfo(t.access_token), await userinfo(t.access_token, { method: 'POST' })]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ sub: f.subject, email: 'ada@example.com', email_verified: true });
    }
    const viaBody = await post(h, `${f.issuerPath}/oauth2/userinfo`, form({ access_token: t.access_token }));
    expect(await viaBody.json()).toEqual({ sub: f.subject, email: 'ada@example.com', email_verified: true });
  });

  it('omits email claims without the email scope', async () => {
    const t = await exchange(h, f, { scope: ['openid'] });
    expect(await (await userinfo(t.access_token)).json()).toEqual({ sub: f.subject });
  });

  it('absent, malformed, tampered, expired and revoked tokens are 401 invalid_token', async () => {
    const t = await exchange(h, f);
    await expectInvalidToken(await userinfo(undefined));
    await expectInvalidToken(await userinfo('not-a-jwt'));
    await expectInvalidToken(await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Basic ${t.access_token}` } }));
    const [hd, pl, sig] = t.access_token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(pl, 'base64url').toString()), sub: 'someone-else' })).toString('base64url');
    await expectInvalidToken(await userinfo(`${hd}.${forged}.${sig}`));
    // An ID token is not an access token (typ JWT, not at+jwt).
    await expectInvalidToken(await userinfo(t.id_token!));
    expect((await revoke(t.access_token)).status).toBe(200);
    await expectInvalidToken(await userinfo(t.access_token));
    const t2 = await exchange(h, f);
    h.clock.advance(h.config.accessTokenTtl + 1);
    await expectInvalidToken(await userinfo(t2.access_token));
  });

  it('a token without openid is 403 insufficient_scope', async () => {
    const t = await exchange(h, f, { scope: ['api.read'] });
    const res = await userinfo(t.access_token);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="openid"');
  });
});

describe('introspection', () => {
  it('an active token: exactly the fields of spec 02', async () => {
    const t = await exchange(h, f);
    const res = await introspect(t.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['active', 'aud', 'client_id', 'email', 'email_verified', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub', 'token_type']);
    expect(body).toMatchObject({
      active: true, scope: 'openid email offline_access api.read', client_id: f.publicClient, token_type: 'Bearer', sub: f.subject,
      aud: API_AUDIENCE, iss: f.tenant.issuer, iat: h.clock.nowSeconds(), exp: h.clock.nowSeconds() + h.config.accessTokenTtl, email: 'ada@example.com', email_verified: true,
    });
  });

  it('email claims only with the email scope', async () => {
    const t = await exchange(h, f, { scope: ['openid', 'api.read'] });
    const body = (await (await introspect(t.access_token)).json()) as Record<string, unknown>;
    expect(body.active).toBe(true);
    expect(body.email).toBeUndefined();
    expect(body.email_verified).toBeUndefined();
  });

  it('inactive: unknown, refresh tokens, ID tokens, expired, revoked, other audiences', async () => {
    const t = await exchange(h, f);
    const inactive = async (token: string) => expect(await (await introspect(token)).json()).toEqual({ active: false });
    await inactive('garbage');
    await inactive(t.refresh_token!);
    await inactive(t.id_token!);
    // A token for the userinfo audience is not for this resource server.
    const web = await exchange(h, f, { clientId: f.webClient, scope: ['openid'] });
    await inactive(web.access_token);
    // A resource server of another API learns nothing about tokens for this one.
    await h.services.resources.create(f.tenant.tenant.id, { uri: 'https://billing.example.com', audience: 'urn:billing', scopes: ['billing'] }, SYSTEM_ACTOR);
    const other = await h.services.credentials.issue(f.tenant.tenant.id, 'https://billing.example.com', SYSTEM_ACTOR);
    expect(await (await introspect(t.access_token, basic(other.credentialId, other.credentialSecret))).json()).toEqual({ active: false });
    expect((await revoke(t.access_token)).status).toBe(200);
    await inactive(t.access_token);
    const t2 = await exchange(h, f);
    h.clock.advance(h.config.accessTokenTtl);
    await inactive(t2.access_token);
  });

  it('rejected credentials are 401 invalid_client with the introspect realm', async () => {
    const t = await exchange(h, f);
    const revoked = await h.services.credentials.issue(f.tenant.tenant.id, API, SYSTEM_ACTOR);
    await h.services.credentials.revoke(f.tenant.tenant.id, revoked.credentialId, SYSTEM_ACTOR);
    for (const auth of [basic(f.credentialId, 'wrong'), basic('unknown', 'x'), 'Basic !!', `Bearer ${t.access_token}`, basic(revoked.credentialId, revoked.credentialSecret), basic(f.webClient, f.webSecret)]) {
      const res = await introspect(t.access_token, auth);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="oauth2/introspect"');
      expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    }
    const none = await post(h, `${f.issuerPath}/oauth2/introspect`, form({ token: t.access_token }));
    expect(none.status).toBe(401);
  });

  it('an invalid form is 400 invalid_request', async () => {
    const auth = { authorization: basic(f.credentialId, f.credentialSecret) };
    expect((await post(h, `${f.issuerPath}/oauth2/introspect`, form({}), auth)).status).toBe(400);
    expect((await post(h, `${f.issuerPath}/oauth2/introspect`, 'token=a&token=b', auth)).status).toBe(400);
    const json = await post(h, `${f.issuerPath}/oauth2/introspect`, '{"token":"x"}', { ...auth, 'content-type': 'application/json' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('a client disabled by another process: its live tokens are inactive from the next request; enabled again, they are back', async () => {
    const t = await exchange(h, f);
    expect(await (await introspect(t.access_token)).json()).toMatchObject({ active: true, client_id: f.publicClient });
    expect((await userinfo(t.access_token)).status).toBe(200);
    // What the CLI does in its own process: a write that moves the catalog version channel (its trigger).
    // Seen from the next event-loop turn on SQLite, on PostgreSQL once notified (within a second).
    await h.changedElsewhere(() => h.sql.run(`UPDATE clients SET status = 'DISABLED' WHERE tenant_id = ? AND client_id = ?`, [f.tenant.tenant.id, f.publicClient]));
    expect(await (await introspect(t.access_token)).json()).toEqual({ active: false });
    await expectInvalidToken(await userinfo(t.access_token));
    const refresh = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }));
    expect(refresh.status).toBe(401);
    expect(await refresh.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });

    // Disabling suspends; it revokes nothing (docs/decisions.md).
    expect(await h.services.clients.setStatus(f.tenant.tenant.id, f.publicClient, 'ACTIVE', SYSTEM_ACTOR)).toMatchObject({ status: 'ACTIVE' });
    expect(await (await introspect(t.access_token)).json()).toMatchObject({ active: true });
  });

  it('a disabled user makes tokens inactive', async () => {
    const t = await exchange(h, f);
    await h.services.store.tx((tx) => tx.users.update(f.tenant.tenant.id, f.userId, { status: 'DISABLED' }));
    expect(await (await introspect(t.access_token)).json()).toEqual({ active: false });
  });
});

describe('revocation (RFC 7009)', () => {
  it('revoking a refresh token ends its grant: refresh, access tokens', async () => {
    const t = await exchange(h, f);
    const res = await revoke(t.refresh_token!);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(await (await introspect(t.access_token)).json()).toEqual({ active: false });
    const r = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }));
    expect(r.status).toBe(400);
  });

  it('revoking an access token leaves the grant (and refresh) alive', async () => {
    const t = await exchange(h, f);
    await revoke(t.access_token);
    expect(await (await introspect(t.access_token)).json()).toEqual({ active: false });
    const r = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }));
    expect(r.status).toBe(200);
  });

  it('unknown, already revoked or another client\'s tokens: 200 and nothing changes', async () => {
    const t = await exchange(h, f);
    expect((await revoke('unknown-token')).status).toBe(200);
    const other = await post(h, `${f.issuerPath}/oauth2/revoke`, form({ token: t.refresh_token! }), { authorization: basic(f.webClient, f.webSecret) });
    expect(other.status).toBe(200);
    expect((await introspect(t.access_token)).status).toBe(200);
    expect(((await (await introspect(t.access_token)).json()) as { active: boolean }).active).toBe(true);
    await revoke(t.refresh_token!);
    expect((await revoke(t.refresh_token!)).status).toBe(200);
  });

  it('client authentication as at the token endpoint (none at all: 401); 400 for a bad form', async () => {
    const bad = await post(h, `${f.issuerPath}/oauth2/revoke`, form({ token: 'x' }), { authorization: basic(f.webClient, 'wrong') });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Basic realm="oauth2/revoke"');
    expect(await bad.json()).toMatchObject({ error: 'invalid_client' });
    expect((await post(h, `${f.issuerPath}/oauth2/revoke`, form({ token: 'x', client_id: 'ghost' }))).status).toBe(401);
    // RFC 6749 §5.2: no client identification at all is 401 invalid_client with a challenge.
    const anonymous = await post(h, `${f.issuerPath}/oauth2/revoke`, form({ token: 'x' }));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="oauth2/revoke"');
    expect(await anonymous.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication required' });
    const missing = await post(h, `${f.issuerPath}/oauth2/revoke`, form({ client_id: f.publicClient }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_request' });
    expect((await post(h, `${f.issuerPath}/oauth2/revoke`, 'token=a', { 'content-type': 'text/plain' })).status).toBe(400);
  });
});

describe('revoke-application-grants', () => {
  const path = () => `${f.issuerPath}/oauth2/revoke-application-grants`;
  const auth = () => ({ authorization: basic(f.credentialId, f.credentialSecret) });

  it('ends every token and the remembered consent of the subject for the client; 204', async () => {
    const a = await exchange(h, f);
    const b = await exchange(h, f);
    const web = await exchange(h, f, { clientId: f.webClient, scope: ['openid', 'offline_access'] });
    await h.services.oauth.rememberConsent(f.tenant.tenant.id, f.userId, f.webClient, ['openid'], null);
    await h.services.oauth.rememberConsent(f.tenant.tenant.id, f.userId, f.publicClient, ['openid'], API);

    const res = await post(h, path(), form({ subject: f.subject, client_id: f.publicClient }), auth());
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    for (const t of [a, b]) {
      expect(await (await introspect(t.access_token)).json()).toEqual({ active: false });
      const r = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }));
      expect(r.status).toBe(400);
    }
    expect(await h.services.store.oauth.findConsent(f.tenant.tenant.id, f.userId, f.publicClient)).toBeUndefined();
    // Another client's grant and consent are untouched.
    expect((await userinfo(web.access_token)).status).toBe(200);
    expect(await h.services.oauth.hasConsent(f.tenant.tenant.id, f.userId, f.webClient, ['openid'], null)).toBe(true);
  });

  it('a code issued before the revocation and not yet exchanged is invalid_grant afterwards', async () => {
    const pending = await issueCode(h, f);
    const otherClient = await issueCode(h, f, { clientId: f.webClient, scope: ['openid'] });
    expect((await post(h, path(), form({ subject: f.subject, client_id: f.publicClient }), auth())).status).toBe(204);
    const res = await post(
      h,
      `${f.issuerPath}/oauth2/token`,
      form({ grant_type: 'authorization_code', client_id: f.publicClient, code: pending.code, redirect_uri: CALLBACK, code_verifier: pending.verifier }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    // The other client's code still works.
    const web = await post(
      h,
      `${f.issuerPath}/oauth2/token`,
      form({ grant_type: 'authorization_code', code: otherClient.code, redirect_uri: CALLBACK, code_verifier: otherClient.verifier }),
      { authorization: basic(f.webClient, f.webSecret) },
    );
    expect(web.status).toBe(200);
  });

  it('unknown subject or client: 204', async () => {
    expect((await post(h, path(), form({ subject: 'nobody', client_id: f.publicClient }), auth())).status).toBe(204);
    expect((await post(h, path(), form({ subject: f.subject, client_id: 'ghost' }), auth())).status).toBe(204);
  });

  it.each([
    ['missing subject', form({ client_id: 'mobile' })],
    ['missing client_id', form({ subject: 'x' })],
    ['an extra field', form({ subject: 'x', client_id: 'mobile', token: 'y' })],
    ['a duplicated field', 'subject=x&subject=y&client_id=mobile'],
  ])('%s is 400 invalid_request', async (_name, body) => {
    const res = await post(h, path(), body, auth());
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('a rejected credential is 401 invalid_client; an unknown issuer 404 empty', async () => {
    const res = await post(h, path(), form({ subject: f.subject, client_id: f.publicClient }), { authorization: basic(f.credentialId, 'nope') });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    const gone = await post(h, '/t/nowhere/oauth2/revoke-application-grants', form({ subject: f.subject, client_id: f.publicClient }), auth());
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe('');
  });
});
