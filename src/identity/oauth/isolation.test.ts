import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { CALLBACK, basic, createFixture, exchange, form, issueCode, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

/** Nothing of one tenant works at another: clients, codes, tokens, credentials (same ids in both). */
let h: Harness;
let a: OAuthFixture;
let b: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  a = await createFixture(h, 'alpha');
  b = await createFixture(h, 'beta');
});
afterEach(() => h.close());

describe('tenant isolation', () => {
  it('a code from tenant A is invalid_grant at tenant B (same client id there)', async () => {
    const { code, verifier } = await issueCode(h, a);
    const res = await post(h, `${b.issuerPath}/oauth2/token`, form({ grant_type: 'authorization_code', client_id: 'mobile', code, redirect_uri: CALLBACK, code_verifier: verifier }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    // ...and still good at home.
    const home = await post(h, `${a.issuerPath}/oauth2/token`, form({ grant_type: 'authorization_code', client_id: 'mobile', code, redirect_uri: CALLBACK, code_verifier: verifier }));
    expect(home.status).toBe(200);
  });

  it("a confidential client's secret from A does not authenticate at B", async () => {
    const res = await post(h, `${b.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: 'x' }), { authorization: basic('web', a.webSecret) });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('a client registered only at A is unknown at B', async () => {
    await h.services.clients.create(a.tenant.tenant.id, {
      clientId: 'only-a', displayName: 'A', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'EXPLICIT', redirectUris: [CALLBACK], scopes: ['openid'],
    }, SYSTEM_ACTOR);
    expect(await h.services.clients.find(b.tenant.tenant.id, 'only-a')).toBeUndefined();
    const v = await h.services.oauth.validateAuthorizationRequest(b.tenant, { client_id: 'only-a', redirect_uri: CALLBACK });
    expect(v).toMatchObject({ ok: false, redirect: false, error: 'invalid_client' });
  });

  it('a refresh token from A is invalid_grant at B', async () => {
    const t = await exchange(h, a);
    const res = await post(h, `${b.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: 'mobile', refresh_token: t.refresh_token! }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it("A's access tokens are invalid at B's userinfo and inactive at B's introspection", async () => {
    const t = await exchange(h, a);
    const ui = await h.request(`${b.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${t.access_token}` } });
    expect(ui.status).toBe(401);
    const intro = await post(h, `${b.issuerPath}/oauth2/introspect`, form({ token: t.access_token }), { authorization: basic(b.credentialId, b.credentialSecret) });
    expect(await intro.json()).toEqual({ active: false });
  });

  it("A's resource-server credential is rejected at B", async () => {
    const t = await exchange(h, b);
    const intro = await post(h, `${b.issuerPath}/oauth2/introspect`, form({ token: t.access_token }), { authorization: basic(a.credentialId, a.credentialSecret) });
    expect(intro.status).toBe(401);
    const rag = await post(h, `${b.issuerPath}/oauth2/revoke-application-grants`, form({ subject: b.subject, client_id: 'mobile' }), {
      authorization: basic(a.credentialId, a.credentialSecret),
    });
    expect(rag.status).toBe(401);
  });

  it("revoking at B cannot touch A's tokens", async () => {
    const t = await exchange(h, a);
    expect((await post(h, `${b.issuerPath}/oauth2/revoke`, form({ token: t.refresh_token!, client_id: 'mobile' }))).status).toBe(200);
    expect((await post(h, `${b.issuerPath}/oauth2/revoke`, form({ token: t.access_token, client_id: 'mobile' }))).status).toBe(200);
    const intro = await post(h, `${a.issuerPath}/oauth2/introspect`, form({ token: t.access_token }), { authorization: basic(a.credentialId, a.credentialSecret) });
    expect(((await intro.json()) as { active: boolean }).active).toBe(true);
    const r = await post(h, `${a.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: 'mobile', refresh_token: t.refresh_token! }));
    expect(r.status).toBe(200);
  });

  it("revoke-application-grants at B with A's subject changes nothing at A", async () => {
    const t = await exchange(h, a);
    await post(h, `${b.issuerPath}/oauth2/revoke-application-grants`, form({ subject: a.subject, client_id: 'mobile' }), { authorization: basic(b.credentialId, b.credentialSecret) });
    const ui = await h.request(`${a.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${t.access_token}` } });
    expect(ui.status).toBe(200);
  });

  it("users and passwords are per tenant", async () => {
    expect(await h.services.users.verifyPassword(a.tenant.tenant.id, 'ada@example.com', 'correct horse battery')).toBeDefined();
    await h.services.store.tx((tx) => tx.users.update(b.tenant.tenant.id, b.userId, { status: 'DISABLED' }));
    expect(await h.services.users.verifyPassword(b.tenant.tenant.id, 'ada@example.com', 'correct horse battery')).toBeUndefined();
    expect(await h.services.users.findById(b.tenant.tenant.id, a.userId)).toBeUndefined();
  });
});
