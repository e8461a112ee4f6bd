import { createHmac, hkdfSync, randomInt } from 'node:crypto';

/** How many recovery codes a user holds (GitHub and Google hand out 10 too). */
export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 without I, L, O, U: nothing to confuse when typed from paper. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** 12 characters of 5 bits: 60 bits, shown as `xxxx-xxxx-xxxx`. */
const LENGTH = 12;

export function newRecoveryCode(): string {
  let s = '';
  for (let i = 0; i < LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
}

/** What the user typed, in the canonical form: case, spaces and dashes do not matter. */
export function normalizeRecoveryCode(code: string): string | undefined {
  if (typeof code !== 'string') return undefined;
  const s = code.toLowerCase().replace(/[\s-]+/g, '');
  return s.length === LENGTH && [...s].every((c) => ALPHABET.includes(c)) ? s : undefined;
}

/**
 * Recovery codes are stored as HMAC-SHA-256 digests under a key derived from the master key,
 * bound to tenant and user: a copy of the database alone does not allow guessing 60-bit codes
 * offline, and the same code of two users never has the same digest.
 */
export function recoveryDigester(masterKey: Buffer) {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'engage recovery codes v1', 32));
  return (tenantId: string, userId: string, normalized: string) => createHmac('sha256', key).update(`${tenantId}|${userId}|${normalized}`).digest('hex');
}
