import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createFixture, exchange, form, issueCode, post, type OAuthFixture } from './testing';

let h: Harness;
let f: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
});
afterEach(() => h.close());

const count = (table: string) => (h.db.read.$client.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number);

describe('oauth.purgeExpired', () => {
  it('removes rows a day past their expiry in batches, and nothing still live', async () => {
    const raw = h.db.write.$client;
    const insert = raw.prepare(
      `INSERT INTO authorization_codes (code_digest, tenant_id, client_id, user_id, redirect_uri, code_challenge, scope, auth_time, expires_at)
       VALUES (?, ?, 'mobile', ?, 'https://app.example.com/cb', 'x', 'openid', 0, ?)`,
    );
    const longAgo = h.clock.nowSeconds() - 2 * 86400;
    raw.transaction(() => {
      for (let i = 0; i < 1234; i++) insert.run(`old-${i}`, f.tenant.tenant.id, f.userId, longAgo);
    })();
    const live = await issueCode(h, f);
    const tokens = await exchange(h, f);
    expect((await post(h, `${f.issuerPath}/oauth2/revoke`, form({ token: tokens.access_token, client_id: f.publicClient }))).status).toBe(200);
    const before = { codes: count('authorization_codes'), refresh: count('refresh_tokens'), jtis: count('revoked_access_tokens') };
    expect(before).toEqual({ codes: 1234 + 2, refresh: 1, jtis: 1 });

    expect(await h.services.oauth.purgeExpired(100)).toBe(1234);
    expect(count('authorization_codes')).toBe(2);
    const exchanged = await post(
      h,
      `${f.issuerPath}/oauth2/token`,
      form({ grant_type: 'authorization_code', client_id: f.publicClient, code: live.code, redirect_uri: 'https://app.example.com/cb', code_verifier: live.verifier }),
    );
    expect(exchanged.status).toBe(200);

    // A day after everything has expired, the rest goes too, grants included.
    expect(count('grants')).toBe(2);
    h.clock.advance(h.config.refreshTokenTtl + 86400 + 1);
    await h.services.oauth.purgeExpired(100);
    expect([count('authorization_codes'), count('refresh_tokens'), count('revoked_access_tokens'), count('grants')]).toEqual([0, 0, 0, 0]);
  });

  it('keeps a grant while any of its tokens can be live: an online grant for its access tokens, an offline one for its latest refresh token', async () => {
    const online = await exchange(h, f, { scope: ['openid', 'api.read'] });
    const offline = await exchange(h, f);
    const grantOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).gid as string;
    const exists = (id: string) => h.db.read.$client.prepare('SELECT 1 FROM grants WHERE id = ?').get(id) !== undefined;

    // Refreshed just before its refresh token would expire, the offline grant lives on.
    h.clock.advance(h.config.refreshTokenTtl - 10);
    const refreshed = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: offline.refresh_token! }));
    expect(refreshed.status).toBe(200);
    h.clock.advance(86400 + 20);
    await h.services.oauth.purgeExpired();
    expect(exists(grantOf(online.access_token))).toBe(false);
    expect(exists(grantOf(offline.access_token))).toBe(true);
    const next = (await refreshed.json()) as { refresh_token: string };
    const again = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: next.refresh_token }));
    expect(again.status).toBe(200);
  });
});
