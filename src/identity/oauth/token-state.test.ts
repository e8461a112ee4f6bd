import { CHANNEL } from '../../platform/store/version-channels';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { basic, createFixture, exchange, form, post, type OAuthFixture, type Tokens } from '../../../test/fixtures/oauth';

/**
 * Introspection and userinfo keep what the database says about a token (grant, jti, user) per
 * process while the token state version stands still (introspection.ts). Whatever ends a token
 * or changes its claims, committed by another process, must reach this one: at its next request
 * on SQLite, within the notification's latency on PostgreSQL (h.changedElsewhere waits for it).
 */
let h: Harness;
let f: OAuthFixture;
let other: Awaited<ReturnType<Harness['otherProcess']>>;
let t: Tokens;

beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  other = await h.otherProcess();
  t = await exchange(h, f);
});
afterEach(() => h.close());

const introspect = async (token: string) =>
  (await (await post(h, `${f.issuerPath}/oauth2/introspect`, form({ token }), { authorization: basic(f.credentialId, f.credentialSecret) })).json()) as Record<string, unknown>;
const userinfo = (token: string) => h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });

/** Introspects twice (the second answer from the cache), runs `change` elsewhere, introspects again. */
async function afterChangeElsewhere(change: () => unknown): Promise<Record<string, unknown>> {
  expect(await introspect(t.access_token)).toMatchObject({ active: true });
  expect(await introspect(t.access_token)).toMatchObject({ active: true });
  await h.changedElsewhere(change, 'tokenState');
  return introspect(t.access_token);
}

describe('a cached token state follows changes made by another process', () => {
  it('the access token revoked there (RFC 7009) is inactive here', async () => {
    const body = await afterChangeElsewhere(() =>
      other.request(`${f.issuerPath}/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ token: t.access_token, client_id: f.publicClient }),
      }),
    );
    expect(body).toEqual({ active: false });
  });

  it('the grant revoked there (revoke-application-grants) ends its access tokens here', async () => {
    const body = await afterChangeElsewhere(() =>
      other.request(`${f.issuerPath}/oauth2/revoke-application-grants`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(f.credentialId, f.credentialSecret) },
        body: form({ subject: f.subject, client_id: f.publicClient }),
      }),
    );
    expect(body).toEqual({ active: false });
  });

  it('the user disabled there: inactive here, and userinfo answers 401', async () => {
    expect((await userinfo(t.access_token)).status).toBe(200);
    const body = await afterChangeElsewhere(() => other.store.users.update(f.tenant.tenant.id, f.userId, { status: 'DISABLED' }));
    expect(body).toEqual({ active: false });
    expect((await userinfo(t.access_token)).status).toBe(401);
  });

  it("the user's email changed there: introspection and userinfo answer the new one", async () => {
    expect(await (await userinfo(t.access_token)).json()).toMatchObject({ email: 'ada@example.com' });
    const body = await afterChangeElsewhere(() => other.store.users.update(f.tenant.tenant.id, f.userId, { email: 'grace@example.com', emailVerified: false }));
    expect(body).toMatchObject({ active: true, email: 'grace@example.com', email_verified: false });
    expect(await (await userinfo(t.access_token)).json()).toMatchObject({ email: 'grace@example.com', email_verified: false });
  });

  it('the grant deleted there (a purge) ends its access tokens here', async () => {
    // Everything "expired" before a date far ahead: the purge deletes this grant while its
    // access token still verifies.
    const body = await afterChangeElsewhere(() => other.store.oauth.purgeExpired(Number.MAX_SAFE_INTEGER, 1000));
    expect(body).toEqual({ active: false });
  });
});

describe('the token state version', () => {
  it('stands still for writes that cannot end a token (a new grant, a password change)', async () => {
    const before = h.services.store.version(CHANNEL.tokenState);
    await exchange(h, f);
    await h.services.store.users.update(f.tenant.tenant.id, f.userId, { updatedAt: new Date().toISOString() });
    await new Promise((r) => setTimeout(r, TEST_ENGINE === 'postgres' ? 100 : 0));
    expect(h.services.store.version(CHANNEL.tokenState)).toBe(before);
  });
});
