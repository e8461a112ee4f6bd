import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { digest } from '../../platform/crypto';
import { CALLBACK, createFixture, decodeJwt, exchange, form, FORM, issueCode, type OAuthFixture, type Tokens } from '../../../test/fixtures/oauth';
import { SYSTEM_ACTOR } from '../audit';

/**
 * What the single SQLite writer gave for free, held by conditional writes and row locks on both
 * engines, with two processes on one database (issue 9): requests are spread over this process
 * and another (h.otherProcess, its own connections), all at once.
 */
let h: Harness;
let f: OAuthFixture;
let other: Awaited<ReturnType<Harness['otherProcess']>>;

beforeEach(async () => {
  h = await createHarness({ refreshReuseGraceSeconds: 0 });
  f = await createFixture(h);
  other = await h.otherProcess();
});
afterEach(() => h.close());

/** The i-th request goes to this process or the other one, alternately. */
const via = (i: number, path: string, body: string) => (i % 2 === 0 ? h.request : other.request)(path, { method: 'POST', headers: { 'content-type': FORM }, body });
const statuses = (rs: Response[]) => rs.map((r) => r.status).sort();

describe('across two processes, at once', () => {
  it('an authorization code is exchanged once: one 200, every other copy invalid_grant', async () => {
    const { code, verifier } = await issueCode(h, f);
    const body = form({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier, client_id: f.publicClient });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => via(i, `${f.issuerPath}/oauth2/token`, body)));
    expect(statuses(answers)).toEqual([200, ...Array<number>(19).fill(400)]);
    for (const r of answers.filter((a) => a.status === 400)) expect(await r.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM grants WHERE tenant_id = ?', [f.tenant.tenant.id]))!.n).toBe(1);
  });

  it('a refresh token presented 20 times: one rotation; the other copies are reuse, and the grant ends', async () => {
    const t0 = await exchange(h, f);
    const body = form({ grant_type: 'refresh_token', refresh_token: t0.refresh_token!, client_id: f.publicClient });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => via(i, `${f.issuerPath}/oauth2/token`, body)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    expect(statuses(answers).filter((s) => s !== 200)).toEqual(Array<number>(19).fill(400));
    // The reuse revoked the grant: the one successor issued is dead too (RFC 9700 §4.14.2).
    const t1 = (await ok[0].json()) as Tokens;
    const next = await via(1, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'refresh_token', refresh_token: t1.refresh_token!, client_id: f.publicClient }));
    expect([next.status, await next.json()]).toEqual([400, expect.objectContaining({ error: 'invalid_grant' })]);
    const gid = decodeJwt(t0.access_token).payload.gid as string;
    expect((await h.sql.get<{ revokedAt: number | null }>('SELECT revoked_at AS "revokedAt" FROM grants WHERE id = ?', [gid]))!.revokedAt).not.toBeNull();
  });

  it('inside the grace window, copies presented at once leave exactly one live successor', async () => {
    const g = await createHarness({ refreshReuseGraceSeconds: 30 });
    try {
      const gf = await createFixture(g);
      const gOther = await g.otherProcess();
      const t0 = await exchange(g, gf);
      const body = form({ grant_type: 'refresh_token', refresh_token: t0.refresh_token!, client_id: gf.publicClient });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? g.request : gOther.request)(`${gf.issuerPath}/oauth2/token`, { method: 'POST', headers: { 'content-type': FORM }, body })),
      );
      expect(statuses(answers)).toEqual(Array<number>(10).fill(200));
      const issued = await Promise.all(answers.map(async (a) => ((await a.json()) as Tokens).refresh_token!));
      const live = await g.sql.all<{ d: string }>(
        'SELECT token_digest AS d FROM refresh_tokens WHERE grant_id = ? AND revoked_at IS NULL AND rotated_at IS NULL',
        [decodeJwt(t0.access_token).payload.gid as string],
      );
      expect(live).toHaveLength(1);
      expect(issued.map(digest)).toContain(live[0].d);
    } finally {
      await g.close();
    }
  });

  it('ten key rotations at once from two processes leave exactly one ACTIVE key', async () => {
    const tenantId = f.tenant.tenant.id;
    // One thread on SQLite (see below): the racers stay in one process there.
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 || TEST_ENGINE === 'sqlite' ? h.services : other).keys.rotate(tenantId, SYSTEM_ACTOR, { now: true })));
    const states = await h.sql.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM signing_keys WHERE tenant_id = ? GROUP BY state ORDER BY state', [tenantId]);
    expect(states.find((s) => s.state === 'ACTIVE')?.n).toBe(1);
    expect(states.reduce((a, s) => a + s.n, 0)).toBe(11);
  });

  it('creating one tenant slug, one client id or one user email from both processes at once: one is created, the others are conflicts', async () => {
    const tenantId = f.tenant.tenant.id;
    const races: [string, (svc: typeof h.services) => Promise<unknown>][] = [
      ['tenant', (svc) => svc.tenants.create({ slug: 'race' }, SYSTEM_ACTOR)],
      ['client', (svc) => svc.clients.create(tenantId, { clientId: 'race', displayName: 'Race', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED', redirectUris: [CALLBACK], scopes: ['openid'] }, SYSTEM_ACTOR)],
      ['user', (svc) => svc.users.create(tenantId, { email: 'race@example.com', emailVerified: true, password: 'correct horse battery' }, SYSTEM_ACTOR)],
    ];
    for (const [what, make] of races) {
      // On SQLite both "processes" share this test's one thread, where a synchronous BEGIN waiting
      // for the other's write lock would hold the very thread that lock's owner needs: the racers
      // stay in one process there (SQLite's single writer serializes real processes anyway).
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => make(i % 2 === 0 || TEST_ENGINE === 'sqlite' ? h.services : other)));
      expect(outcomes.filter((o) => o.status === 'fulfilled'), what).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason, what).toMatchObject({ kind: 'conflict' });
    }
  });

  it('two first consents of one user and client at once: the scopes merge, neither is lost', async () => {
    const tenantId = f.tenant.tenant.id;
    // One thread on SQLite (see above): its writer serializes the two anyway.
    const second = TEST_ENGINE === 'sqlite' ? h.services : other;
    await Promise.all([
      h.services.oauth.rememberConsent(tenantId, f.userId, f.webClient, ['openid', 'email'], null),
      second.oauth.rememberConsent(tenantId, f.userId, f.webClient, ['openid', 'offline_access'], null),
    ]);
    const row = await h.sql.get<{ scope: string }>('SELECT scope FROM consents WHERE tenant_id = ? AND user_id = ? AND client_id = ?', [tenantId, f.userId, f.webClient]);
    expect(row!.scope.split(' ').sort()).toEqual(['email', 'offline_access', 'openid']);
  });
});
