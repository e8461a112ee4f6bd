import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { startSmtp, type TestSmtp } from '../../../test/helpers/smtp';
import { EMAIL, PASSWORD, createNativeFixture, nativePost, openInteraction, type NativeFixture } from '../../../test/fixtures/native';
import { SYSTEM_ACTOR } from '../audit';

/**
 * One-use guarantees under concurrency (conditional writes, store.ts): on PostgreSQL the
 * requests really run in parallel on separate connections; on SQLite they interleave at every
 * await. Of several identical requests exactly one succeeds.
 */
let h: Harness;
let f: NativeFixture;
let smtp: TestSmtp;
beforeEach(async () => {
  smtp = await startSmtp();
  h = await createHarness({ smtpUrl: smtp.url });
  f = await createNativeFixture(h);
});
afterEach(async () => {
  await h.close();
  await smtp.close();
});

const post = (route: string, fields: Record<string, string>) => nativePost(h.request, f, route, fields);
const statuses = async (rs: Promise<Response>[]) => (await Promise.all(rs)).map((r) => r.status).sort();

describe('native one-use guarantees under concurrency', () => {
  it('the same email code sent twice in parallel signs in once', async () => {
    const it = await openInteraction(h.request, f);
    await post('/email/request', { interaction_id: it.interactionId, email: EMAIL });
    await h.services.mail.sendDue();
    const code = smtp.codeFor(EMAIL);
    const fields = { interaction_id: it.interactionId, email: EMAIL, code };
    const s = await statuses([post('/email/verify', fields), post('/email/verify', fields), post('/email/verify', fields)]);
    // One wins; the others find the code spent (invalid_code) or the interaction finished (invalid_interaction).
    expect(s.filter((x) => x === 200)).toHaveLength(1);
    expect(s.filter((x) => x === 401 || x === 400)).toHaveLength(2);
    const codes = await h.sql.all<{ n: number }>('SELECT count(*) AS "n" FROM authorization_codes');
    expect(Number(codes[0].n)).toBe(1);
  });

  it('the same interaction used by two correct passwords in parallel yields one code', async () => {
    const it = await openInteraction(h.request, f);
    const fields = { interaction_id: it.interactionId, email: EMAIL, password: PASSWORD };
    const res = await Promise.all([post('/password', fields), post('/password', fields)]);
    expect(res.map((r) => r.status).sort()).toEqual([200, 400]);
    const loser = res.find((r) => r.status === 400)!;
    expect(await loser.json()).toEqual({ error: 'invalid_interaction' });
    const codes = await h.sql.all<{ n: number }>('SELECT count(*) AS "n" FROM authorization_codes');
    expect(Number(codes[0].n)).toBe(1);
  });

  it('a registration grant completed twice in parallel creates one account', async () => {
    const it = await openInteraction(h.request, f);
    const email = 'twin@example.com';
    await post('/registration/request', { interaction_id: it.interactionId, email });
    await h.services.mail.sendDue();
    const verify = await post('/registration/verify', { interaction_id: it.interactionId, email, code: smtp.codeFor(email) });
    const { registrationGrant } = (await verify.json()) as { registrationGrant: string };
    const fields = { interaction_id: it.interactionId, registration_grant: registrationGrant, password: 'a long password' };
    const res = await Promise.all([post('/registration/complete', fields), post('/registration/complete', fields)]);
    // The loser finds the grant spent (invalid_grant) or, if it arrives later, the interaction ended (invalid_interaction).
    expect(res.filter((r) => r.status === 201)).toHaveLength(1);
    const loser = res.find((r) => r.status !== 201)!;
    expect([[401, { error: 'invalid_grant' }], [400, { error: 'invalid_interaction' }]]).toContainEqual([loser.status, await loser.json()]);
    const users = await h.sql.all<{ n: number }>(`SELECT count(*) AS "n" FROM users WHERE email = ?`, [email]);
    expect(Number(users[0].n)).toBe(1);
  });

  it('an address taken between the check and the insert is a conflict, and the transaction goes on', async () => {
    const tenantId = f.tenant.tenant.id;
    const hash = await h.services.users.hashPassword('a long password');
    const outcome = await h.services.store.tx(async (tx) => {
      // As if another process created the account right after this one looked.
      const blind = { ...tx, users: { ...tx.users, findByEmail: async () => undefined } };
      const created = await h.services.users.createVerifiedIn(blind, tenantId, EMAIL, hash);
      const stillUsable = await tx.users.findByEmail(tenantId, EMAIL);
      return { created, stillUsable: !!stillUsable };
    });
    expect(outcome).toEqual({ created: false, stillUsable: true });
  });

  it('parallel wrong passwords never get past the lock', async () => {
    const email = 'target@example.com';
    await h.services.users.create(f.tenant.tenant.id, { email, password: PASSWORD }, SYSTEM_ACTOR);
    const its = await Promise.all(Array.from({ length: 10 }, () => openInteraction(h.request, f)));
    const res = await Promise.all(its.map((it) => post('/password', { interaction_id: it.interactionId, email, password: 'wrong password' })));
    const s = res.map((r) => r.status);
    // Five free failures per account (sessions/throttle.ts), counted before verification.
    expect(s.filter((x) => x === 401)).toHaveLength(5);
    expect(s.filter((x) => x === 429)).toHaveLength(5);
  });
});
