import { Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { matchStep, otpauthUri, stepAt, totpCode } from './totp';
import { newRecoveryCode, normalizeRecoveryCode } from './recovery-codes';

/** RFC 6238 Appendix B, the SHA-1 rows: the seed is the ASCII string "12345678901234567890", 8 digits. */
const SEED = new Secret({ buffer: new TextEncoder().encode('12345678901234567890').buffer as ArrayBuffer }).base32;
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at T=%i the SHA-1 code is %s', (t, code) => {
    expect(totpCode(SEED, stepAt(t * 1000), 8, 'SHA1')).toBe(code);
  });

  it('accepts the codes of the previous, current and next 30-second step, and no other', () => {
    const t = 1_700_000_000_000;
    const now = stepAt(t);
    for (const d of [-1, 0, 1]) expect(matchStep(SEED, totpCode(SEED, now + d), t)).toBe(now + d);
    for (const d of [-3, -2, 2, 3]) expect(matchStep(SEED, totpCode(SEED, now + d), t)).toBeUndefined();
    expect(matchStep(SEED, '12345', t)).toBeUndefined();
    expect(matchStep(SEED, 'abcdef', t)).toBeUndefined();
  });

  it('writes an otpauth URI an authenticator app reads back with the same parameters', () => {
    const uri = otpauthUri(SEED, 'Acme', 'ada@example.com');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Acme:ada%40example\.com\?/);
    const q = new URL(uri).searchParams;
    expect(Object.fromEntries(q)).toMatchObject({ secret: SEED, issuer: 'Acme', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});

describe('recovery codes', () => {
  it('are 12 characters of an unambiguous alphabet, read back whatever the case, spaces or dashes', () => {
    const c = newRecoveryCode();
    expect(c).toMatch(/^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/);
    expect(normalizeRecoveryCode(` ${c.toUpperCase().replace(/-/g, ' ')} `)).toBe(c.replace(/-/g, ''));
    expect(normalizeRecoveryCode('short')).toBeUndefined();
    expect(normalizeRecoveryCode('iiii-llll-oooo')).toBeUndefined();
  });
});
