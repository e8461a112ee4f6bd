import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { digest } from '../../platform/crypto';
import { SYSTEM_ACTOR } from '../audit';
import { API, API_AUDIENCE, CALLBACK, FORM, basic, createFixture, decodeJwt, exchange, form, issueCode, post, type OAuthFixture, type Tokens } from '../../../test/fixtures/oauth';

let h: Harness;
let f: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
});
afterEach(() => h.close());

const TOKEN = () => `${f.issuerPath}/oauth2/token`;

interface Row {
  name: string;
  request: () => Promise<{ path?: string; body: string; headers?: Record<string, string> }>;
  status: number;
  error?: string;
  challenge?: boolean;
}

/** A valid code exchange for the public client, with one field changed. */
async function codeRequest(change: (fields: Record<string, string>) => void = () => {}) {
  const { code, verifier } = await issueCode(h, f);
  const fields: Record<string, string> = { grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: verifier };
  change(fields);
  return { body: form(fields) };
}

const rows: Row[] = [
  { name: 'wrong content type', request: async () => ({ ...(await codeRequest()), headers: { 'content-type': 'application/json' } }), status: 400, error: 'invalid_request' },
  { name: 'no content type', request: async () => ({ ...(await codeRequest()), headers: { 'content-type': '' } }), status: 400, error: 'invalid_request' },
  { name: 'duplicated parameter', request: async () => ({ body: (await codeRequest()).body + '&code_verifier=' + 'a'.repeat(43) }), status: 400, error: 'invalid_request' },
  { name: 'missing grant_type', request: () => codeRequest((x) => delete x.grant_type), status: 400, error: 'invalid_request' },
  { name: 'unsupported grant_type', request: () => codeRequest((x) => (x.grant_type = 'password')), status: 400, error: 'unsupported_grant_type' },
  { name: 'client_credentials grant', request: () => codeRequest((x) => (x.grant_type = 'client_credentials')), status: 400, error: 'unsupported_grant_type' },
  { name: 'missing code', request: () => codeRequest((x) => delete x.code), status: 400, error: 'invalid_request' },
  { name: 'missing redirect_uri', request: () => codeRequest((x) => delete x.redirect_uri), status: 400, error: 'invalid_request' },
  { name: 'missing code_verifier', request: () => codeRequest((x) => delete x.code_verifier), status: 400, error: 'invalid_request' },
  { name: 'malformed code_verifier', request: () => codeRequest((x) => (x.code_verifier = 'short')), status: 400, error: 'invalid_request' },
  // RFC 6749 §5.2: no client identification at all is a failed client authentication.
  { name: 'no client authentication at all', request: () => codeRequest((x) => delete x.client_id), status: 401, error: 'invalid_client', challenge: true },
  { name: 'unknown code', request: () => codeRequest((x) => (x.code = 'not-a-code')), status: 400, error: 'invalid_grant' },
  { name: 'redirect_uri mismatch', request: () => codeRequest((x) => (x.redirect_uri = 'https://app.example.com/other')), status: 400, error: 'invalid_grant' },
  { name: 'PKCE verifier mismatch', request: () => codeRequest((x) => (x.code_verifier = 'b'.repeat(43))), status: 400, error: 'invalid_grant' },
  {
    name: 'expired code',
    request: async () => {
      const r = await codeRequest();
      h.clock.advance(h.config.authorizationCodeTtl + 1);
      return r;
    },
    status: 400,
    error: 'invalid_grant',
  },
  {
    name: 'code issued to another client',
    request: async () => {
      const { code, verifier } = await issueCode(h, f, { clientId: f.publicClient });
      return { body: form({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier }), headers: { authorization: basic(f.webClient, f.webSecret) } };
    },
    status: 400,
    error: 'invalid_grant',
  },
  { name: 'resource other than the grant', request: () => codeRequest((x) => (x.resource = 'https://other.example.com')), status: 400, error: 'invalid_grant' },
  { name: 'unknown refresh token', request: async () => ({ body: form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: 'nope' }) }), status: 400, error: 'invalid_grant' },
  { name: 'missing refresh_token', request: async () => ({ body: form({ grant_type: 'refresh_token', client_id: f.publicClient }) }), status: 400, error: 'invalid_request' },
  {
    name: 'refresh scope wider than the grant',
    request: async () => {
      const t = await exchange(h, f, { scope: ['openid', 'offline_access'] });
      return { body: form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token!, scope: 'openid email' }) };
    },
    status: 400,
    error: 'invalid_scope',
  },
  { name: 'unknown public client', request: () => codeRequest((x) => (x.client_id = 'nobody')), status: 401, error: 'invalid_client' },
  { name: 'confidential client without Basic', request: () => codeRequest((x) => (x.client_id = f.webClient)), status: 401, error: 'invalid_client' },
  {
    name: 'wrong client secret',
    request: async () => ({ ...(await codeRequest((x) => delete x.client_id)), headers: { authorization: basic(f.webClient, 'wrong') } }),
    status: 401,
    error: 'invalid_client',
    challenge: true,
  },
  {
    name: 'unknown client with Basic',
    request: async () => ({ ...(await codeRequest((x) => delete x.client_id)), headers: { authorization: basic('ghost', 'secret') } }),
    status: 401,
    error: 'invalid_client',
    challenge: true,
  },
  {
    name: 'public client presenting Basic',
    request: async () => ({ ...(await codeRequest((x) => delete x.client_id)), headers: { authorization: basic(f.publicClient, 'anything') } }),
    status: 401,
    error: 'invalid_client',
    challenge: true,
  },
  {
    name: 'malformed Basic header',
    request: async () => ({ ...(await codeRequest()), headers: { authorization: 'Basic !!!' } }),
    status: 401,
    error: 'invalid_client',
    challenge: true,
  },
  { name: 'client_secret_post', request: () => codeRequest((x) => ((x.client_id = f.webClient), (x.client_secret = f.webSecret))), status: 401, error: 'invalid_client' },
  {
    name: 'Basic client differs from form client_id',
    request: async () => ({ ...(await codeRequest()), headers: { authorization: basic(f.webClient, f.webSecret) } }),
    status: 400,
    error: 'invalid_request',
  },
  { name: 'unknown issuer', request: async () => ({ ...(await codeRequest()), path: '/t/nowhere/oauth2/token' }), status: 404 },
  {
    name: 'disabled tenant',
    request: async () => {
      const r = await codeRequest();
      await h.services.tenants.setStatus(f.slug, 'DISABLED', SYSTEM_ACTOR);
      return r;
    },
    status: 404,
  },
];

describe('POST /oauth2/token errors (spec 02 token table)', () => {
  it.each(rows)('$name → $status $error', async (row) => {
    const r = await row.request();
    const res = await post(h, r.path ?? TOKEN(), r.body, r.headers);
    expect(res.status).toBe(row.status);
    if (row.error) {
      const body = (await res.json()) as { error: string };
      expect(body.error).toBe(row.error);
      expect(Object.keys(body).every((k) => k === 'error' || k === 'error_description')).toBe(true);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
    } else {
      expect(await res.text()).toBe('');
    }
    if (row.challenge) expect(res.headers.get('www-authenticate')).toBe('Basic realm="oauth2/token"');
    else expect(res.headers.get('www-authenticate')).toBeNull();
  });
});

describe('authorization_code grant', () => {
  it('returns access, ID and refresh tokens with no-store headers', async () => {
    const { code, verifier } = await issueCode(h, f);
    const res = await post(h, TOKEN(), form({ grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: verifier }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: h.config.accessTokenTtl, scope: 'openid email offline_access api.read' });

    const at = decodeJwt(body.access_token as string);
    const kid = (await h.services.keys.signingKey(f.tenant.tenant.id))!.kid;
    expect(at.header).toEqual({ alg: 'RS256', typ: 'at+jwt', kid });
    expect(at.payload).toMatchObject({ iss: f.tenant.issuer, sub: f.subject, aud: API_AUDIENCE, client_id: f.publicClient, scope: 'openid email offline_access api.read' });
    expect((at.payload.exp as number) - (at.payload.iat as number)).toBe(h.config.accessTokenTtl);
    expect(typeof at.payload.jti).toBe('string');

    const id = decodeJwt(body.id_token as string);
    expect(id.header).toEqual({ alg: 'RS256', typ: 'JWT', kid });
    expect(id.payload).toEqual({
      iss: f.tenant.issuer, sub: f.subject, aud: f.publicClient, iat: h.clock.nowSeconds(), exp: h.clock.nowSeconds() + h.config.idTokenTtl,
      auth_time: h.clock.nowSeconds(), nonce: 'n-0S6_WzA2Mj', email: 'ada@example.com', email_verified: true,
    });
  });

  it('a confidential client authenticates with Basic; without a resource aud is the userinfo endpoint', async () => {
    const t = await exchange(h, f, { clientId: f.webClient, scope: ['openid'] });
    expect(t.refresh_token).toBeUndefined();
    expect(decodeJwt(t.access_token).payload.aud).toBe(`${f.tenant.issuer}/oauth2/userinfo`);
    expect(decodeJwt(t.id_token!).payload.email).toBeUndefined();
  });

  it('no ID token without openid, no refresh token without offline_access', async () => {
    const t = await exchange(h, f, { scope: ['api.read'] });
    expect(t.id_token).toBeUndefined();
    expect(t.refresh_token).toBeUndefined();
    expect(t.scope).toBe('api.read');
  });

  it('a reused code is invalid_grant and revokes every token issued from it', async () => {
    const { code, verifier } = await issueCode(h, f);
    const body = form({ grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: verifier });
    const first = (await (await post(h, TOKEN(), body)).json()) as { access_token: string; refresh_token: string };
    const userinfo = () => h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${first.access_token}` } });
    expect((await userinfo()).status).toBe(200);

    const second = await post(h, TOKEN(), body);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: 'invalid_grant' });

    expect((await userinfo()).status).toBe(401);
    const refresh = await post(h, TOKEN(), form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: first.refresh_token }));
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a failed PKCE attempt does not burn the code for the rightful client', async () => {
    const { code, verifier } = await issueCode(h, f);
    const bad = await post(h, TOKEN(), form({ grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: 'c'.repeat(43) }));
    expect(bad.status).toBe(400);
    const good = await post(h, TOKEN(), form({ grant_type: 'authorization_code', client_id: f.publicClient, code, redirect_uri: CALLBACK, code_verifier: verifier }));
    expect(good.status).toBe(200);
  });
});

describe('refresh_token grant', () => {
  const refresh = (token: string, extra: Record<string, string> = {}) =>
    post(h, TOKEN(), form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: token, ...extra }));

  it('rotates the refresh token and returns a new ID token without nonce', async () => {
    const t = await exchange(h, f);
    h.clock.advance(60);
    const res = await refresh(t.refresh_token!);
    expect(res.status).toBe(200);
    const r = (await res.json()) as { refresh_token: string; id_token: string; access_token: string; scope: string };
    expect(r.refresh_token).not.toBe(t.refresh_token);
    expect(r.scope).toBe(t.scope);
    const id = decodeJwt(r.id_token).payload;
    expect(id.nonce).toBeUndefined();
    expect(id.auth_time).toBe(h.clock.nowSeconds() - 60);
    expect((await refresh(r.refresh_token)).status).toBe(200);
  });

  it('scope may only narrow; the refresh token keeps the original scope', async () => {
    const t = await exchange(h, f);
    const narrowed = (await (await refresh(t.refresh_token!, { scope: 'api.read' })).json()) as { scope: string; access_token: string; id_token?: string; refresh_token: string };
    expect(narrowed.scope).toBe('api.read');
    expect(decodeJwt(narrowed.access_token).payload.scope).toBe('api.read');
    expect(narrowed.id_token).toBeUndefined();
    const full = (await (await refresh(narrowed.refresh_token)).json()) as { scope: string };
    expect(full.scope).toBe(t.scope);
  });

  it('reuse of a rotated token after the grace window revokes the whole grant', async () => {
    const t = await exchange(h, f);
    const r1 = (await (await refresh(t.refresh_token!)).json()) as { refresh_token: string; access_token: string };
    h.clock.advance(h.config.refreshReuseGraceSeconds + 1);
    const reuse = await refresh(t.refresh_token!);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    // The legitimate successor and its access token die with the grant.
    expect((await refresh(r1.refresh_token)).status).toBe(400);
    const ui = await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${r1.access_token}` } });
    expect(ui.status).toBe(401);
  });

  it('inside the grace window a lost answer is replaced: the unused successor is retired', async () => {
    const t = await exchange(h, f);
    const lost = (await (await refresh(t.refresh_token!)).json()) as { refresh_token: string };
    h.clock.advance(1);
    const retry = await refresh(t.refresh_token!);
    expect(retry.status).toBe(200);
    const again = (await retry.json()) as { refresh_token: string };
    // The lost answer never reached anyone, so nobody presents it: the chain goes on.
    const next = await refresh(again.refresh_token);
    expect(next.status).toBe(200);
    const row = await h.sql.get('SELECT revoked_at AS "revokedAt", rotated_at AS "rotatedAt" FROM refresh_tokens WHERE token_digest = ?', [digest(lost.refresh_token)]);
    expect(row).toEqual({ revokedAt: h.clock.nowSeconds(), rotatedAt: null });
  });

  const introspect = async (token: string) =>
    (await post(h, `${f.issuerPath}/oauth2/introspect`, form({ token }), { authorization: basic(f.credentialId, f.credentialSecret) })).json();
  const grantRevokedAt = async (accessToken: string) =>
    (await h.sql.get<{ revokedAt: number | null }>('SELECT revoked_at AS "revokedAt" FROM grants WHERE id = ?', [decodeJwt(accessToken).payload.gid]))?.revokedAt;

  it('RFC 9700 §4.14.2: a thief replaying r0 inside the window is caught when the client presents the retired r1', async () => {
    const t = await exchange(h, f);
    const r1 = (await (await refresh(t.refresh_token!)).json()) as Tokens; // the client's answer
    h.clock.advance(1);
    const stolen = await refresh(t.refresh_token!); // the thief replays r0 inside the window
    expect(stolen.status).toBe(200);
    const r1Prime = (await stolen.json()) as Tokens;
    expect((await introspect(r1Prime.access_token)) as { active: boolean }).toMatchObject({ active: true });

    const caught = await refresh(r1.refresh_token!); // the client's r1 was retired by the replay
    expect(caught.status).toBe(400);
    expect(await caught.json()).toEqual({ error: 'invalid_grant', error_description: 'refresh token already used' });

    // The whole grant is over: the thief's r1′ and every access token of the grant.
    expect(await grantRevokedAt(r1Prime.access_token)).toBe(h.clock.nowSeconds());
    const thief = await refresh(r1Prime.refresh_token!);
    expect(thief.status).toBe(400);
    expect(await thief.json()).toEqual({ error: 'invalid_grant', error_description: 'refresh token revoked' });
    for (const at of [t.access_token, r1.access_token, r1Prime.access_token]) expect(await introspect(at)).toEqual({ active: false });
  });

  it('mirror case: the thief refreshes r0 first, the client retries r0 in the window, the thief\'s retired r1 ends the grant', async () => {
    const t = await exchange(h, f);
    const thiefR1 = (await (await refresh(t.refresh_token!)).json()) as Tokens;
    h.clock.advance(1);
    const client = (await (await refresh(t.refresh_token!)).json()) as Tokens; // looks like a lost answer
    const caught = await refresh(thiefR1.refresh_token!);
    expect(caught.status).toBe(400);
    expect(await caught.json()).toEqual({ error: 'invalid_grant', error_description: 'refresh token already used' });
    expect((await refresh(client.refresh_token!)).status).toBe(400);
    expect(await introspect(client.access_token)).toEqual({ active: false });
    expect(await grantRevokedAt(client.access_token)).not.toBeNull();
  });

  it('a replacement racing the rotation of the same successor ends the grant, whichever commits first', async () => {
    const t = await exchange(h, f);
    const r1 = (await (await refresh(t.refresh_token!)).json()) as Tokens;
    h.clock.advance(1);
    const [a, b] = await Promise.all([refresh(t.refresh_token!), refresh(r1.refresh_token!)]);
    // One of the two may be answered before the other commits; at least one is refused and the grant ends.
    expect([a.status, b.status]).toContain(400);
    expect(await grantRevokedAt(r1.access_token)).not.toBeNull();
  });

  it('inside the grace window, reuse after the successor was used still revokes the grant', async () => {
    const t = await exchange(h, f);
    const r1 = (await (await refresh(t.refresh_token!)).json()) as { refresh_token: string };
    const r2 = (await (await refresh(r1.refresh_token)).json()) as { refresh_token: string };
    expect((await refresh(t.refresh_token!)).status).toBe(400);
    expect((await refresh(r2.refresh_token)).status).toBe(400);
  });

  it('a refused refresh rotates nothing: the same token works once its user and resource are back', async () => {
    const tenantId = f.tenant.tenant.id;
    const t = await exchange(h, f);
    expect(decodeJwt(t.access_token).payload.aud).toBe(API_AUDIENCE);
    await h.services.resources.setStatus(tenantId, API, 'DISABLED', SYSTEM_ACTOR);
    const noResource = await refresh(t.refresh_token!);
    expect([noResource.status, await noResource.json()]).toEqual([400, { error: 'invalid_grant', error_description: "the grant's resource is no longer available" }]);
    await h.services.resources.setStatus(tenantId, API, 'ACTIVE', SYSTEM_ACTOR);
    await h.services.users.setStatus(tenantId, f.userId, 'DISABLED', SYSTEM_ACTOR);
    const noUser = await refresh(t.refresh_token!);
    expect([noUser.status, await noUser.json()]).toEqual([400, { error: 'invalid_grant', error_description: 'the user is no longer active' }]);
    await h.services.users.setStatus(tenantId, f.userId, 'ACTIVE', SYSTEM_ACTOR);
    // Past the reuse grace window: had either refusal rotated the token, this would be reuse.
    h.clock.advance(h.config.refreshReuseGraceSeconds + 1);
    const res = await refresh(t.refresh_token!);
    expect(res.status).toBe(200);
    const r = (await res.json()) as { access_token: string; refresh_token: string };
    expect(decodeJwt(r.access_token).payload).toMatchObject({ aud: API_AUDIENCE, sub: f.subject, gid: decodeJwt(t.access_token).payload.gid });
    expect((await refresh(r.refresh_token)).status).toBe(200);
  });

  it('the grant outlives the tokens a refresh issues: extended when it would end before them', async () => {
    const t = await exchange(h, f);
    const gid = decodeJwt(t.access_token).payload.gid as string;
    const expiry = async () => Number((await h.sql.get<{ e: number }>('SELECT expires_at AS "e" FROM grants WHERE id = ?', [gid]))!.e);
    const first = await expiry();
    // Not yet: the grant was made to outlive the first refresh token.
    const r1 = (await (await refresh(t.refresh_token!)).json()) as { refresh_token: string };
    expect(await expiry()).toBe(first);
    h.clock.advance(h.config.refreshTokenTtl - 60);
    const r2 = await refresh(r1.refresh_token);
    expect(r2.status).toBe(200);
    expect(await expiry()).toBeGreaterThanOrEqual(h.clock.nowSeconds() + h.config.refreshTokenTtl);
  });

  it('an expired refresh token is invalid_grant', async () => {
    const t = await exchange(h, f);
    h.clock.advance(h.config.refreshTokenTtl + 1);
    expect((await refresh(t.refresh_token!)).status).toBe(400);
  });

  it('a refresh token of another client is invalid_grant', async () => {
    const t = await exchange(h, f);
    const res = await post(h, TOKEN(), form({ grant_type: 'refresh_token', refresh_token: t.refresh_token! }), { authorization: basic(f.webClient, f.webSecret) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('accepts the form content type with a charset', async () => {
    const t = await exchange(h, f);
    const res = await post(h, TOKEN(), form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: t.refresh_token! }), { 'content-type': `${FORM}; charset=UTF-8` });
    expect(res.status).toBe(200);
  });
});

describe('error_description stays within RFC 6749 §5.2 characters', () => {
  it('an echoed grant_type with quotes, backslashes, non-ASCII and controls is sanitized', async () => {
    // The client is authenticated first (the route's guard), then the grant type is looked at.
    const res = await post(h, TOKEN(), form({ grant_type: 'x"y\\z\u00e9\u{1F600}\u0001\u007f', client_id: f.publicClient }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'unsupported_grant_type', error_description: "grant_type x'y/z???? is not supported" });
  });

  it('an echoed parameter name is sanitized too', async () => {
    const res = await post(h, TOKEN(), 'a%22%5C%0A=1&a%22%5C%0A=2');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: "a'/? is duplicated" });
  });
});
