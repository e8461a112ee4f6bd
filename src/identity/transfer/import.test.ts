import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarnessWithTenant, type Harness } from '../../../test/helpers/harness';
import { cliActor } from '../../platform/audit/audit';
import { stepAt, totpCode } from '../mfa/totp';
import { MALFORMED, type ImportItem } from './importer';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Imported accounts (issue 12): kept as imported, verified at the first sign-in and then
 * re-hashed to argon2id; TOTP factors and (source, externalId) survive; on both engines.
 */
let h: Harness;
let tenantId: string;

beforeEach(async () => {
  ({ h, tenantId } = await createHarnessWithTenant('shop'));
});
afterEach(() => h.close());

const items = (records: unknown[], from = 0): ImportItem[] => records.map((record, i) => ({ position: from + i, record }));
const rec = (n: number, extra: Record<string, unknown> = {}) => ({ externalId: `ext-${n}`, email: `user${n}@example.com`, emailVerified: true, active: true, ...extra });

/** One vector per format (the same sources as hashes.test.ts). */
const FORMATS: [string, string, string][] = [
  ['bcrypt', '$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm', 'Kk4DQuMMfZL9o'],
  ['argon2', '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4', 'password'],
  ['scrypt', '$scrypt$ln=16384,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA=$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE=', 'test'],
  ['pbkdf2', '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI', 'test'],
  ['django-pbkdf2', 'pbkdf2_sha256$20000$seasalt$oBSd886ysm3AqYun62DOdin8YcfbU1z9cksZSuLP9r0=', 'lètmein'],
  ['firebase-scrypt', '$firescrypt$ln=14,r=8,p=1$42xEC+ixf3L2lw==$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$Bw==$jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==', 'user1password'],
  ['salted-sha', '$sha256$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$0gfRVLCvtBCk20udLDEY5vNhujWx7RGjwRIS1ebMsLY=', 'test'],
  ['ldap', '{SSHA512}xPUl/px+1cG55rUH4rzcwxdOIPSB2TingLpiJJumN2xyDWN4Ix1WQG3ihnvHaWUE8MYNkvMi5rf0C9NYixHsE6Yh59M=', 'test123'],
];

describe('imported accounts', () => {
  it.each(FORMATS)('%s: a wrong password fails; the first sign-in re-hashes to argon2id, the next one uses it', async (format, hash, password) => {
    const [out] = await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items([rec(1, { password: { hash } })]), { existing: 'fail' });
    expect(out).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
    const stored = (await h.services.users.findByEmail(tenantId, 'user1@example.com'))!;
    expect(stored).toMatchObject({ passwordHash: null, importedPasswordHash: hash, importedPasswordFormat: format, subject: out.subject });

    expect(await h.services.users.verifyPassword(tenantId, 'user1@example.com', password + '!')).toBeUndefined();
    expect((await h.services.users.findByEmail(tenantId, 'user1@example.com'))!.importedPasswordHash).toBe(hash);

    expect((await h.services.users.verifyPassword(tenantId, 'user1@example.com', password))?.id).toBe(stored.id);
    const after = (await h.services.users.findByEmail(tenantId, 'user1@example.com'))!;
    expect(after.passwordHash).toMatch(/^\$argon2id\$/);
    expect(after.importedPasswordHash).toBeNull();
    expect(after.importedPasswordFormat).toBeNull();

    // The next sign-in verifies the argon2id hash: the imported one is gone.
    expect((await h.services.users.verifyPassword(tenantId, 'user1@example.com', password))?.id).toBe(stored.id);
    expect(await h.services.users.verifyPassword(tenantId, 'user1@example.com', 'wrong password')).toBeUndefined();
    expect((await h.services.users.findByEmail(tenantId, 'user1@example.com'))!.passwordHash).toBe(after.passwordHash);
  });

  it('a disabled imported user does not sign in, and keeps the imported hash', async () => {
    const [hash, password] = [FORMATS[0][1], FORMATS[0][2]];
    await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items([rec(1, { active: false, password: { hash } })]), { existing: 'fail' });
    expect(await h.services.users.verifyPassword(tenantId, 'user1@example.com', password)).toBeUndefined();
    expect((await h.services.users.findByEmail(tenantId, 'user1@example.com'))).toMatchObject({ status: 'DISABLED', importedPasswordHash: hash });
  });

  it('a password changed before the first sign-in replaces the imported hash', async () => {
    await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items([rec(1, { password: { hash: FORMATS[0][1] } })]), { existing: 'fail' });
    const u = (await h.services.users.findByEmail(tenantId, 'user1@example.com'))!;
    await h.services.users.changePassword(tenantId, u.id, 'a brand new password');
    expect(await h.services.users.verifyPassword(tenantId, 'user1@example.com', FORMATS[0][2])).toBeUndefined();
    expect((await h.services.users.findByEmail(tenantId, 'user1@example.com'))!.importedPasswordHash).toBeNull();
    expect(await h.services.users.verifyPassword(tenantId, 'user1@example.com', 'a brand new password')).toBeDefined();
  });

  it('an imported TOTP factor is active and verifies codes of its secret', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const [out] = await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items([rec(1, { totp: { secret } })]), { existing: 'fail' });
    const u = (await h.services.users.findBySubject(tenantId, out.subject!))!;
    expect(await h.services.mfa.hasSecondFactor(tenantId, u.id)).toBe(true);
    const code = totpCode(secret, stepAt(h.clock.now().getTime()));
    expect((await h.services.mfa.verifySecondFactor(tenantId, u.id, 'totp', code)).ok).toBe(true);
    expect((await h.services.mfa.verifySecondFactor(tenantId, u.id, 'totp', code === '000000' ? '111111' : '000000')).ok).toBe(false);
  });

  it('each bad record fails with its errorCode; the good ones are created; a rerun skips what exists', async () => {
    const records = [
      rec(1, { password: { hash: FORMATS[0][1] } }),
      MALFORMED,
      rec(2, { password: { hash: '$md4$nope' } }),
      rec(3, { email: 'USER1@example.com' }), // same address as record 1 (case folded)
      rec(1, { email: 'other@example.com' }), // same external id as record 1
      { ...rec(4), schemaVersion: 2 },
      rec(5, { identities: [{ provider: 'nowhere', subject: 'x' }] }),
      { externalId: 'ext-6', email: 'not an address', emailVerified: true, active: true },
      rec(7, { emailVerified: 'yes' }),
      rec(8),
    ];
    const outcomes = await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items(records), { existing: 'skip' });
    expect(outcomes.map((o) => [o.position, o.status, o.errorCode])).toEqual([
      [0, 'SUCCEEDED', null],
      [1, 'FAILED', 'malformed_record'],
      [2, 'FAILED', 'unknown_hash_format'],
      [3, 'FAILED', 'duplicate_email'],
      [4, 'FAILED', 'duplicate_external_id'],
      [5, 'FAILED', 'unsupported_schema_version'],
      [6, 'FAILED', 'unknown_identity_provider'],
      [7, 'FAILED', 'malformed_record'],
      [8, 'FAILED', 'malformed_record'],
      [9, 'SUCCEEDED', null],
    ]);
    expect((await h.services.users.list(tenantId)).map((u) => u.email).sort()).toEqual(['user1@example.com', 'user8@example.com']);

    const again = await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items([rec(1), rec(8), rec(9)]), { existing: 'skip' });
    expect(again.map((o) => [o.status, o.subject])).toEqual([['SKIPPED', outcomes[0].subject], ['SKIPPED', outcomes[9].subject], ['SUCCEEDED', again[2].subject]]);
    // The same account from another source is another account: its email is taken.
    const other = await h.services.transfer.importer.importBatch(tenantId, 'other-idp', 'CREATE_ONLY', items([rec(1)]), { existing: 'fail' });
    expect(other[0]).toMatchObject({ status: 'FAILED', errorCode: 'duplicate_email' });
    expect((await h.services.users.list(tenantId)).length).toBe(3);
  });

  it('VALIDATE_ONLY checks everything and creates nobody', async () => {
    const out = await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'VALIDATE_ONLY', items([rec(1), rec(1)]), { existing: 'fail' });
    expect(out.map((o) => [o.status, o.subject, o.errorCode])).toEqual([['SUCCEEDED', null, null], ['FAILED', null, 'duplicate_external_id']]);
    expect(await h.services.users.list(tenantId)).toEqual([]);
  });

  it('tenants are isolated: the same external id and email import into another tenant', async () => {
    const other = (await h.services.tenants.create({ slug: 'corp' }, SYSTEM_ACTOR)).id;
    await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items([rec(1)]), { existing: 'fail' });
    const [o] = await h.services.transfer.importer.importBatch(other, 'legacy', 'CREATE_ONLY', items([rec(1)]), { existing: 'fail' });
    expect(o.status).toBe('SUCCEEDED');
    expect((await h.services.users.list(other)).length).toBe(1);
  });

  it('a CLI run records one audit event with counts and no secret', async () => {
    await h.services.transfer.recordRun(cliActor(), tenantId, 'users.imported', { source: 'legacy', mode: 'CREATE_ONLY', processed: 3, succeeded: 2, failed: 1, skipped: 0 });
    const events = await h.services.store.audit.list({ tenantId, action: 'users.imported', page: 0, size: 10 });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({ actorSubject: cliActor().subject, details: { processed: 3, succeeded: 2, failed: 1 } });
  });
});
