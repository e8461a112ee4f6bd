import { timingSafeEqual } from 'node:crypto';
import { BlowfishState } from './blowfish';

/**
 * bcrypt verification (Provos and Mazières, USENIX 1999; OpenBSD's bcrypt.c for the details:
 * the NUL-terminated key cut at 72 bytes, the magic text, the 23 of 24 output bytes kept).
 * `$2a$`, `$2b$` and `$2y$` compute the same thing for every password shorter than 256 bytes
 * (OpenBSD's 2b fixed a length wrap-around at 256; crypt_blowfish's 2y marks hashes made after
 * its sign-extension bug fix), so all three are verified alike.
 */

const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;

export const BCRYPT_PATTERN = /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/;

/** bcrypt's own base64 (its alphabet, no padding): `n` bytes out of `text`. */
function decode(text: string, n: number): Uint8Array | undefined {
  const out = new Uint8Array(n);
  let o = 0;
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < text.length && o < n; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? INDEX[c] : -1;
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return o === n ? out : undefined;
}

// "OrpheanBeholderScryDoubt", the 24-byte text bcrypt encrypts 64 times.
const MAGIC = Buffer.from('OrpheanBeholderScryDoubt', 'latin1');

/** Rounds of the expensive key schedule between two yields to the event loop (about a millisecond of work). */
const ROUNDS_PER_TURN = 16;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The 23 raw checksum bytes of bcrypt(cost, salt, password). The 2^cost rounds (about 60 ms at
 * cost 10, 250 ms at cost 12) run on the event loop, so they yield every ROUNDS_PER_TURN rounds:
 * other requests are served in between instead of waiting for the whole verification.
 */
export async function bcryptRaw(password: Uint8Array, salt: Uint8Array, cost: number): Promise<Uint8Array> {
  // The key is the password with its terminating NUL, at most 72 bytes (OpenBSD bcrypt.c).
  const keyLength = Math.min(password.length + 1, 72);
  const key = new Uint8Array(keyLength);
  key.set(password.subarray(0, keyLength));
  const state = new BlowfishState();
  state.expand(key, salt);
  for (let i = 2 ** cost; i > 0; i--) {
    state.expand(key, null);
    state.expand(salt, null);
    if (i % ROUNDS_PER_TURN === 0) await nextTurn();
  }
  const words = new Uint32Array(6);
  for (let i = 0; i < 6; i++) words[i] = MAGIC.readUInt32BE(i * 4);
  for (let i = 0; i < 64; i++) state.encryptWords(words);
  const out = Buffer.alloc(24);
  for (let i = 0; i < 6; i++) out.writeUInt32BE(words[i], i * 4);
  return out.subarray(0, 23);
}

/**
 * Whether `password` matches the modular-crypt bcrypt string `hash` (already matched by
 * BCRYPT_PATTERN, its cost already within the bounds: ./bounds.ts). `raw` computes the checksum.
 */
export async function verifyBcrypt(hash: string, password: string, raw: typeof bcryptRaw = bcryptRaw): Promise<boolean> {
  if (!BCRYPT_PATTERN.test(hash)) return false;
  const cost = Number(hash.slice(4, 6));
  const salt = decode(hash.slice(7, 29), 16);
  const expected = decode(hash.slice(29), 23);
  if (!salt || !expected) return false;
  const actual = await raw(Buffer.from(password, 'utf8'), salt, cost);
  return timingSafeEqual(actual, expected);
}
