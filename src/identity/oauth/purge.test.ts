import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createFixture, exchange, form, issueCode, post, type OAuthFixture } from '../../../test/fixtures/oauth';

let h: Harness;
let f: OAuthFixture;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
});
afterEach(() => h.close());

const count = async (table: string) => Number((await h.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);

describe('oauth.purgeExpired', () => {
  it('removes rows a day past their expiry in batches, and nothing still live', async () => {
    const longAgo = h.clock.nowSeconds() - 2 * 86400;
    // Multi-row inserts, a few hundred rows at a time (under either engine's parameter limit).
    for (let from = 0; from < 1234; from += 300) {
      const n = Math.min(300, 1234 - from);
      const params = Array.from({ length: n }, (_, i) => [`old-${from + i}`, f.tenant.tenant.id, f.userId, longAgo]).flat();
      const row = `(?, ?, 'mobile', ?, 'https://app.example.com/cb', 'x', 'openid', 0, ?)`;
      await h.sql.run(
        `INSERT INTO authorization_codes (code_digest, tenant_id, client_id, user_id, redirect_uri, code_challenge, scope, auth_time, expires_at)
         VALUES ${new Array<string>(n).fill(row).join(', ')}`,
        params,
      );
    }
    const live = await issueCode(h, f);
    const tokens = await exchange(h, f);
    expect((await post(h, `${f.issuerPath}/oauth2/revoke`, form({ token: tokens.access_token, client_id: f.publicClient }))).status).toBe(200);
    const before = { codes: await count('authorization_codes'), refresh: await count('refresh_tokens'), jtis: await count('revoked_access_tokens') };
    expect(before).toEqual({ codes: 1234 + 2, refresh: 1, jtis: 1 });

    expect(await h.services.oauth.purgeExpired(100)).toBe(1234);
    expect(await count('authorization_codes')).toBe(2);
    const exchanged = await post(
      h,
      `${f.issuerPath}/oauth2/token`,
      form({ grant_type: 'authorization_code', client_id: f.publicClient, code: live.code, redirect_uri: 'https://app.example.com/cb', code_verifier: live.verifier }),
    );
    expect(exchanged.status).toBe(200);

    // A day after everything has expired, the rest goes too, grants included.
    expect(await count('grants')).toBe(2);
    h.clock.advance(h.config.refreshTokenTtl + 86400 + 1);
    await h.services.oauth.purgeExpired(100);
    expect([await count('authorization_codes'), await count('refresh_tokens'), await count('revoked_access_tokens'), await count('grants')]).toEqual([0, 0, 0, 0]);
  });

  it('keeps a grant while any of its tokens can be live: an online grant for its access tokens, an offline one for its latest refresh token', async () => {
    const online = await exchange(h, f, { scope: ['openid', 'api.read'] });
    const offline = await exchange(h, f);
    const grantOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).gid as string;
    const exists = async (id: string) => (await h.sql.get('SELECT 1 AS one FROM grants WHERE id = ?', [id])) !== undefined;

    // Refreshed just before its refresh token would expire, the offline grant lives on.
    h.clock.advance(h.config.refreshTokenTtl - 10);
    const refreshed = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: offline.refresh_token! }));
    expect(refreshed.status).toBe(200);
    h.clock.advance(86400 + 20);
    await h.services.oauth.purgeExpired();
    expect(await exists(grantOf(online.access_token))).toBe(false);
    expect(await exists(grantOf(offline.access_token))).toBe(true);
    const next = (await refreshed.json()) as { refresh_token: string };
    const again = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', client_id: f.publicClient, refresh_token: next.refresh_token }));
    expect(again.status).toBe(200);
  });
});
