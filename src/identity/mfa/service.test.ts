import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { createFixture, type OAuthFixture } from '../../../test/fixtures/oauth';
import { stepAt, totpCode } from './totp';
import { SYSTEM_ACTOR } from '../audit';

/** Second factors through services.mfa (the port native sign-in calls), on the test engine. */
let h: Harness;
let f: OAuthFixture;
let tenantId: string;

beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  tenantId = f.tenant.tenant.id;
});
afterEach(() => h.close());

const codeNow = (secret: string, d = 0) => totpCode(secret, stepAt(h.clock.now().getTime()) + d);

async function enrol(userId = f.userId) {
  const e = await h.services.mfa.beginEnrolment(tenantId, userId, 'acme', 'ada@example.com');
  const recovery = await h.services.mfa.confirmEnrolment(tenantId, userId, codeNow(e.secret));
  h.clock.advance(90); // past the confirming code's step (and its window)
  return { secret: e.secret, recovery };
}

describe('enrolment', () => {
  it('is not a factor until confirmed with a code; a wrong code keeps it pending', async () => {
    const e = await h.services.mfa.beginEnrolment(tenantId, f.userId, 'acme', 'ada@example.com');
    expect(e.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(e.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(e.qrSvg).not.toMatch(/<script|href=/i);
    expect(await h.services.mfa.hasSecondFactor(tenantId, f.userId)).toBe(false);
    expect(await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'totp', codeNow(e.secret))).toEqual({ ok: false });
    await expect(h.services.mfa.confirmEnrolment(tenantId, f.userId, '000000')).rejects.toMatchObject({ code: 'invalid_code' });
    expect(await h.services.mfa.status(tenantId, f.userId)).toEqual({ enrolled: false, enrolledAt: null, pending: true, recoveryCodesLeft: 0 });
    const again = await h.services.mfa.pendingEnrolment(tenantId, f.userId, 'acme', 'ada@example.com');
    expect(again?.secret).toBe(e.secret);
    const codes = await h.services.mfa.confirmEnrolment(tenantId, f.userId, codeNow(e.secret));
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(await h.services.mfa.hasSecondFactor(tenantId, f.userId)).toBe(true);
    expect(await h.services.mfa.status(tenantId, f.userId)).toEqual({ enrolled: true, enrolledAt: h.clock.now().toISOString(), pending: false, recoveryCodesLeft: 10 });
    await expect(h.services.mfa.beginEnrolment(tenantId, f.userId, 'acme', 'x')).rejects.toMatchObject({ code: 'mfa_already_enrolled' });
  });

  it('starting again replaces a pending secret: only the newest one confirms', async () => {
    const first = await h.services.mfa.beginEnrolment(tenantId, f.userId, 'acme', 'ada@example.com');
    const second = await h.services.mfa.beginEnrolment(tenantId, f.userId, 'acme', 'ada@example.com');
    expect(second.secret).not.toBe(first.secret);
    await expect(h.services.mfa.confirmEnrolment(tenantId, f.userId, codeNow(first.secret))).rejects.toMatchObject({ code: 'invalid_code' });
    expect(await h.services.mfa.confirmEnrolment(tenantId, f.userId, codeNow(second.secret))).toHaveLength(10);
    // The confirming code's step is used: the same code is not a sign-in.
    expect(await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'totp', codeNow(second.secret))).toEqual({ ok: false });
    await expect(h.services.mfa.confirmEnrolment(tenantId, f.userId, codeNow(second.secret, 1))).rejects.toMatchObject({ code: 'mfa_already_enrolled' });
  });

  it('keeps the secret sealed and the recovery codes as digests: none of them is in the database', async () => {
    const { secret, recovery } = await enrol();
    const rows = await h.sql.all<Record<string, unknown>>('SELECT * FROM user_totp_factors');
    const codes = await h.sql.all<Record<string, unknown>>('SELECT * FROM user_recovery_codes');
    const dump = JSON.stringify([rows, codes]);
    expect(rows).toHaveLength(1);
    expect(codes).toHaveLength(10);
    expect(dump).not.toContain(secret);
    for (const c of recovery) {
      expect(dump).not.toContain(c);
      expect(dump).not.toContain(c.replace(/-/g, ''));
    }
    // Another process with another master key cannot open the secret.
    const stranger = await h.otherProcess(Buffer.alloc(32, 7));
    await expect(stranger.mfa.verifySecondFactor(tenantId, f.userId, 'totp', codeNow(secret))).rejects.toThrow();
  });
});

describe('verifySecondFactor', () => {
  it('accepts a TOTP code within one step either side, once; an earlier step after a later one is refused', async () => {
    const { secret } = await enrol();
    const verify = (code: string) => h.services.mfa.verifySecondFactor(tenantId, f.userId, 'totp', code);
    expect(await verify(codeNow(secret, -1))).toEqual({ ok: true, replacementRecoveryCode: null });
    expect(await verify(codeNow(secret, -1))).toEqual({ ok: false });
    expect(await verify(codeNow(secret, 1))).toEqual({ ok: true, replacementRecoveryCode: null });
    expect(await verify(codeNow(secret, 0))).toEqual({ ok: false });
    expect(await verify(codeNow(secret, 2))).toEqual({ ok: false });
    expect(await verify('abc')).toEqual({ ok: false });
    h.clock.advance(60);
    expect(await verify(codeNow(secret))).toEqual({ ok: true, replacementRecoveryCode: null });
  });

  it('the same TOTP code used in parallel (two processes on PostgreSQL) succeeds once', async () => {
    const { secret } = await enrol();
    // Two processes on PostgreSQL; on SQLite one process (its single writer is the point of contention).
    const other = TEST_ENGINE === 'sqlite' ? h.services : await h.otherProcess();
    const code = codeNow(secret);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other.mfa : h.services.mfa).verifySecondFactor(tenantId, f.userId, 'totp', code)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('a recovery code works once and is replaced by a new one, which works in turn', async () => {
    const { recovery } = await enrol();
    const verify = (code: string) => h.services.mfa.verifySecondFactor(tenantId, f.userId, 'recovery', code);
    const first = await verify(recovery[3].toUpperCase());
    expect(first.ok).toBe(true);
    const replacement = first.ok ? first.replacementRecoveryCode! : '';
    expect(replacement).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    expect(recovery).not.toContain(replacement);
    expect(await verify(recovery[3])).toEqual({ ok: false });
    expect((await h.services.mfa.status(tenantId, f.userId)).recoveryCodesLeft).toBe(10);
    expect((await verify(replacement)).ok).toBe(true);
    expect(await verify('0000-0000-0000')).toEqual({ ok: false });
    // A TOTP code is not a recovery code and the reverse.
    expect(await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'totp', recovery[0])).toEqual({ ok: false });
  });

  it('the same recovery code used in parallel (two processes on PostgreSQL) succeeds once', async () => {
    const { recovery } = await enrol();
    // Two processes on PostgreSQL; on SQLite one process (its single writer is the point of contention).
    const other = TEST_ENGINE === 'sqlite' ? h.services : await h.otherProcess();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other.mfa : h.services.mfa).verifySecondFactor(tenantId, f.userId, 'recovery', recovery[0])));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect((await h.services.mfa.status(tenantId, f.userId)).recoveryCodesLeft).toBe(10);
  });

  it('is tenant- and user-bound: another user or tenant gets ok:false for the same codes', async () => {
    const { secret, recovery } = await enrol();
    const bob = await h.services.users.create(tenantId, { email: 'bob@example.com' }, SYSTEM_ACTOR);
    const g = await createFixture(h, 'globex');
    expect(await h.services.mfa.hasSecondFactor(tenantId, bob.id)).toBe(false);
    expect(await h.services.mfa.verifySecondFactor(tenantId, bob.id, 'totp', codeNow(secret))).toEqual({ ok: false });
    expect(await h.services.mfa.verifySecondFactor(tenantId, bob.id, 'recovery', recovery[0])).toEqual({ ok: false });
    expect(await h.services.mfa.verifySecondFactor(g.tenant.tenant.id, f.userId, 'recovery', recovery[0])).toEqual({ ok: false });
    expect(await h.services.mfa.hasSecondFactor(g.tenant.tenant.id, f.userId)).toBe(false);
  });

  it('regenerating invalidates every earlier recovery code; removal ends the factor and its codes', async () => {
    const { secret, recovery } = await enrol();
    const fresh = await h.services.mfa.regenerateRecoveryCodes(tenantId, f.userId);
    expect(fresh).toHaveLength(10);
    expect(await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'recovery', recovery[1])).toEqual({ ok: false });
    expect((await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'recovery', fresh[1])).ok).toBe(true);
    expect(await h.services.mfa.remove(tenantId, f.userId)).toBe(true);
    expect(await h.services.mfa.hasSecondFactor(tenantId, f.userId)).toBe(false);
    expect(await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'totp', codeNow(secret))).toEqual({ ok: false });
    expect(await h.services.mfa.verifySecondFactor(tenantId, f.userId, 'recovery', fresh[2])).toEqual({ ok: false });
    expect(await h.sql.all('SELECT * FROM user_recovery_codes')).toEqual([]);
    await expect(h.services.mfa.regenerateRecoveryCodes(tenantId, f.userId)).rejects.toMatchObject({ code: 'mfa_not_enrolled' });
  });
});
