import { pbkdf2Sync } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarnessWithTenant, type Harness } from '../../../test/helpers/harness';
import { cliActor } from '../../platform/audit/audit';
import { stepAt, totpCode } from '../mfa/totp';
import { bulkExport, bulkImport } from './bulk-import';
import { base32 } from './formats';
import { SYSTEM_ACTOR } from '../audit';

/** `engage users import` / `export` without the terminal (cmd/commands/users-transfer.ts is a thin shell around these). */
let h: Harness;
let tenantId: string;

beforeEach(async () => {
  ({ h, tenantId } = await createHarnessWithTenant('shop'));
});
afterEach(() => h.close());

const HASHES = [
  '$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm',
  '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4',
  'pbkdf2_sha256$20000$seasalt$oBSd886ysm3AqYun62DOdin8YcfbU1z9cksZSuLP9r0=',
  '{SSHA}JFZFs0oHzxbMwkSJmYVeI8MnTDy/276a',
  '$sha256$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$0gfRVLCvtBCk20udLDEY5vNhujWx7RGjwRIS1ebMsLY=',
];

/** An input stream in small chunks, so lines cross chunk boundaries as they do in a file. */
const streamOf = (text: string) => Readable.from((function* () {
  for (let i = 0; i < text.length; i += 4096) yield Buffer.from(text.slice(i, i + 4096));
})());

async function run(text: string, extra: Partial<Parameters<typeof bulkImport>[1]> = {}) {
  const report = new PassThrough();
  let reportText = '';
  report.on('data', (c: Buffer) => (reportText += c.toString()));
  const summary = await bulkImport(h.services.transfer, { tenantId, source: 'legacy', mode: 'CREATE_ONLY', input: streamOf(text), report: () => report, actor: cliActor(), batch: 1_000, ...extra });
  report.end();
  return { summary, report: reportText.trim() ? reportText.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [] };
}

describe('users import (CLI)', () => {
  it('100,000 records mixing formats with 1% bad ones: the report lists exactly those; a rerun imports nothing new', async () => {
    const N = 100_000;
    const bad = new Map<number, string>();
    const lines: string[] = [];
    for (let i = 0; i < N; i++) {
      const r: Record<string, unknown> = { externalId: `ext-${i}`, email: `user${i}@example.com`, emailVerified: i % 3 === 0, active: i % 50 !== 0, password: { hash: HASHES[i % HASHES.length] } };
      if (i % 100 === 37) {
        // 1%: four kinds of bad records, spread over the file.
        const kind = (i / 100) % 4 | 0;
        if (kind === 0) { lines.push('{"externalId": "broken'); bad.set(i, 'malformed_record'); continue; }
        if (kind === 1) { r.password = { hash: '$md5$CY9rzUYh03PK3k6DJie09g==' }; bad.set(i, 'unknown_hash_format'); }
        if (kind === 2) { r.email = 'user0@example.com'; bad.set(i, 'duplicate_email'); }
        if (kind === 3) { r.externalId = 'ext-1'; bad.set(i, 'duplicate_external_id'); }
      }
      lines.push(JSON.stringify(r));
    }
    const text = lines.join('\n') + '\n';
    const first = await run(text);
    expect(bad.size).toBe(N / 100);
    expect(first.summary).toEqual({ source: 'legacy', mode: 'CREATE_ONLY', processed: N, succeeded: N - bad.size, failed: bad.size, skipped: 0 });
    expect(first.report.map((r) => [r.position, r.errorCode])).toEqual([...bad.entries()]);
    expect(first.report.every((r) => r.line === (r.position as number) + 1)).toBe(true);
    // The report never carries a password hash.
    expect(JSON.stringify(first.report)).not.toMatch(/\$2b\$|SSHA|argon2/);

    const count = async () => Number((await h.sql.get<{ n: number | string }>('SELECT COUNT(*) AS "n" FROM users WHERE tenant_id = ?', [tenantId]))!.n);
    expect(await count()).toBe(N - bad.size);
    const second = await run(text);
    expect(second.summary).toEqual({ source: 'legacy', mode: 'CREATE_ONLY', processed: N, succeeded: 0, failed: bad.size, skipped: N - bad.size });
    expect(second.report.map((r) => r.position)).toEqual([...bad.keys()]);
    expect(await count()).toBe(N - bad.size);
    // One audit event per run.
    expect((await h.services.store.audit.list({ tenantId, action: 'users.imported', page: 0, size: 10 })).items).toHaveLength(2);

    // Imported users sign in with their old passwords (one per format).
    expect(await h.services.users.verifyPassword(tenantId, 'user1@example.com', 'password')).toBeDefined();
    expect(await h.services.users.verifyPassword(tenantId, 'user3@example.com', 'test123')).toBeDefined();
    expect(await h.services.users.verifyPassword(tenantId, 'user0@example.com', 'Kk4DQuMMfZL9o')).toBeUndefined(); // DISABLED (active: false)
  }, 120_000);

  it('VALIDATE_ONLY reports the bad records and creates nobody', async () => {
    const { summary, report } = await run('{"externalId":"a","email":"a@example.com","emailVerified":true,"active":true}\nnot json\n', { mode: 'VALIDATE_ONLY' });
    expect(summary).toMatchObject({ processed: 2, succeeded: 1, failed: 1 });
    expect(report).toEqual([{ position: 1, line: 2, externalId: null, email: null, errorCode: 'malformed_record', detail: 'not a JSON object' }]);
    expect(await h.services.users.list(tenantId)).toEqual([]);
  });

  it('a record with a NUL character in a string fails on its own (nul_character); the rest of its batch is imported', async () => {
    await h.services.providers.add(tenantId, { name: 'google', issuer: 'https://accounts.google.com', audiences: ['web'] }, SYSTEM_ACTOR);
    const rec = (i: number, extra: Record<string, unknown> = {}) => ({ externalId: `n${i}`, email: `n${i}@example.com`, emailVerified: true, active: true, ...extra });
    const lines = [
      rec(0),
      rec(1, { email: 'n1\u0000@example.com' }),
      rec(2, { externalId: 'n\u00002' }),
      rec(3, { identities: [{ provider: 'google', subject: 'sub\u00003' }] }),
      rec(4, { password: { hash: `${HASHES[0]}\u0000` } }),
      rec(5),
    ].map((r) => JSON.stringify(r));
    lines.push('{"externalId":"n6","email":"n6@example.com","emailVerified":true,"active":true,"x\\u0000":1}');
    // One batch: before, the store refused the NUL text (NulInText) and the whole batch stopped.
    const { summary, report } = await run(lines.join('\n') + '\n');
    expect(summary).toEqual({ source: 'legacy', mode: 'CREATE_ONLY', processed: 7, succeeded: 2, failed: 5, skipped: 0 });
    expect(report.map((r) => [r.position, r.errorCode])).toEqual([[1, 'nul_character'], [2, 'nul_character'], [3, 'nul_character'], [4, 'nul_character'], [6, 'nul_character']]);
    expect(report.map((r) => r.detail)).toEqual([
      'email: holds a NUL character (\\u0000), which text values may not contain',
      'externalId: holds a NUL character (\\u0000), which text values may not contain',
      'identities[0].subject: holds a NUL character (\\u0000), which text values may not contain',
      'password.hash: holds a NUL character (\\u0000), which text values may not contain',
      'x\\u0000: holds a NUL character (\\u0000), which text values may not contain',
    ]);
    // The report names the record without the NUL text: its own fields when clean, else null.
    expect(report[0]).toMatchObject({ line: 2, externalId: 'n1', email: null });
    expect(report[1]).toMatchObject({ externalId: null, email: 'n2@example.com' });
    expect((await h.services.users.list(tenantId)).map((u) => u.email).sort()).toEqual(['n0@example.com', 'n5@example.com']);
  });

  it('export streams every user as NDJSON in creation order', async () => {
    await run(Array.from({ length: 2_500 }, (_, i) => JSON.stringify({ externalId: `e${i}`, email: `u${i}@example.com`, emailVerified: true, active: true })).join('\n'), { batch: 700 });
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    expect(await bulkExport(h.services.transfer, tenantId, out, cliActor())).toBe(2_500);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { position: number; email: string });
    expect(lines.map((l) => l.position)).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
    expect(new Set(lines.map((l) => l.email)).size).toBe(2_500);
  });
});

describe('users import --from', () => {
  it('auth0: bulk user export lines with custom_password_hash, bcrypt password_hash, TOTP and social identities', async () => {
    await h.services.providers.add(tenantId, { name: 'google', issuer: 'https://accounts.google.com', audiences: ['web'] }, SYSTEM_ACTOR);
    const lines = [
      { user_id: 'auth0|1', email: 'one@example.com', email_verified: true, password_hash: HASHES[0] },
      // Auth0 docs: sha256 with a utf8 salt as prefix, hex digest (Kratos vector: salt "5opmkgz03r", password "test").
      { user_id: 'auth0|2', email: 'two@example.com', email_verified: false, custom_password_hash: { algorithm: 'sha256', hash: { value: Buffer.from('0gfRVLCvtBCk20udLDEY5vNhujWx7RGjwRIS1ebMsLY=', 'base64').toString('hex'), encoding: 'hex' }, salt: { value: '5opmkgz03r', encoding: 'utf8', position: 'prefix' } } },
      { user_id: 'auth0|3', email: 'three@example.com', email_verified: true, blocked: true, custom_password_hash: { algorithm: 'md5', hash: { value: 'x' } } },
      { user_id: 'google-oauth2|4', email: 'four@example.com', email_verified: true, identities: [{ provider: 'google-oauth2', user_id: '4', isSocial: true }], mfa_factors: [{ totp: { secret: 'JBSWY3DPEHPK3PXP' } }] },
    ];
    const { summary, report } = await run(lines.map((l) => JSON.stringify(l)).join('\n'), { from: 'auth0', source: 'auth0', formatOptions: { providerMap: { 'google-oauth2': 'google' } } });
    expect(summary).toMatchObject({ succeeded: 3, failed: 1 });
    expect(report.map((r) => [r.externalId, r.errorCode])).toEqual([['auth0|3', 'unknown_hash_format']]);
    expect(await h.services.users.verifyPassword(tenantId, 'one@example.com', 'Kk4DQuMMfZL9o')).toBeDefined();
    expect(await h.services.users.verifyPassword(tenantId, 'two@example.com', 'test')).toBeDefined();
    const four = (await h.services.users.findByEmail(tenantId, 'four@example.com'))!;
    expect(await h.services.store.providers.findIdentity(tenantId, 'https://accounts.google.com', '4')).toMatchObject({ userId: four.id, provider: 'google' });
    expect(await h.services.mfa.hasSecondFactor(tenantId, four.id)).toBe(true);
  });

  it('firebase: auth:export JSON with the sample project parameters of firebase/scrypt', async () => {
    const doc = JSON.stringify({
      users: [
        { localId: 'fb-1', email: 'fb@example.com', emailVerified: true, salt: '42xEC+ixf3L2lw==', passwordHash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==', providerUserInfo: [{ providerId: 'password', rawId: 'fb@example.com' }] },
        { localId: 'fb-2', email: 'fb2@example.com', emailVerified: false, disabled: true },
      ],
    }, null, 2);
    const firebase = { signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==', saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
    const { summary } = await run(doc, { from: 'firebase', source: 'firebase', formatOptions: { firebase } });
    expect(summary).toMatchObject({ processed: 2, succeeded: 2, failed: 0 });
    expect(await h.services.users.verifyPassword(tenantId, 'fb@example.com', 'user1password')).toBeDefined();
    expect(await h.services.users.findByEmail(tenantId, 'fb2@example.com')).toMatchObject({ status: 'DISABLED', emailVerified: false });
  });

  it('keycloak: realm export users with pbkdf2-sha256 and argon2 credentials and an OTP credential', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const value = pbkdf2Sync('kc-password', salt, 27500, 64, 'sha256');
    const realm = {
      realm: 'acme',
      users: [
        {
          id: 'kc-1', username: 'ann', email: 'ann@example.com', emailVerified: true, enabled: true,
          credentials: [
            { type: 'password', secretData: JSON.stringify({ value: value.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }), credentialData: JSON.stringify({ hashIterations: 27500, algorithm: 'pbkdf2-sha256', additionalParameters: {} }) },
            { type: 'otp', secretData: JSON.stringify({ value: 'k3JzyTQXrP1xrv3Uqv1G' }), credentialData: JSON.stringify({ subType: 'totp', digits: 6, period: 30, algorithm: 'HmacSHA1' }) },
          ],
        },
        {
          // Keycloak 24+'s default: argon2id (phc-winner-argon2 test.c vector's parameters and output).
          id: 'kc-2', username: 'bob', email: 'bob@example.com', emailVerified: false, enabled: false,
          credentials: [{ type: 'password', secretData: JSON.stringify({ value: 'nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4=', salt: 'c29tZXNhbHQ=' }), credentialData: JSON.stringify({ hashIterations: 2, algorithm: 'argon2', additionalParameters: { hashLength: ['32'], memory: ['256'], type: ['id'], version: ['1.3'], parallelism: ['1'] } }) }],
        },
      ],
    };
    const { summary, report } = await run(JSON.stringify(realm, null, 2), { from: 'keycloak', source: 'keycloak' });
    expect(report).toEqual([]);
    expect(summary).toMatchObject({ processed: 2, succeeded: 2 });
    const ann = (await h.services.users.verifyPassword(tenantId, 'ann@example.com', 'kc-password'))!;
    expect(ann).toBeDefined();
    const code = totpCode(base32(Buffer.from('k3JzyTQXrP1xrv3Uqv1G')), stepAt(h.clock.now().getTime()));
    expect((await h.services.mfa.verifySecondFactor(tenantId, ann.id, 'totp', code)).ok).toBe(true);
    const bob = (await h.services.users.findByEmail(tenantId, 'bob@example.com'))!;
    expect(bob).toMatchObject({ status: 'DISABLED', importedPasswordFormat: 'argon2' });
    expect(await h.services.users.isCurrentPassword(bob, 'password')).toBe(true);
  });
});
