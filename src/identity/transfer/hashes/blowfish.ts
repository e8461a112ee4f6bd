/**
 * Blowfish (Schneier, 1993) as bcrypt uses it: the cipher's state, its encryption of one block,
 * and the two key-schedule steps of Provos and Mazières' "eksblowfish" (USENIX 1999, "A
 * Future-Adaptable Password Scheme", §4). Verification only: imported bcrypt hashes are checked
 * once, at their user's first sign-in, and then replaced with argon2id.
 */

/**
 * Blowfish's initial P-array (18 words) and S-boxes (4 × 256 words) are the hexadecimal digits of
 * π's fractional part, in order (Schneier, "Description of a New Variable-Length Key, 64-Bit
 * Block Cipher", 1993). Computed once here with Machin's formula, π = 16·atan(1/5) − 4·atan(1/239),
 * in fixed point, rather than carried as a table of 1,042 literals; blowfish.test.ts checks
 * words at both ends against the published table.
 */
let initial: Uint32Array | undefined;

export function piWords(): Uint32Array {
  if (initial) return initial;
  const words = 18 + 4 * 256;
  const bits = BigInt(words * 32 + 64); // 64 guard bits absorb the truncation of every term
  const one = 1n << bits;
  const atanInv = (x: bigint): bigint => {
    const x2 = x * x;
    let term = one / x;
    let sum = term;
    for (let k = 1n; term !== 0n; k++) {
      term /= x2;
      sum += (k & 1n ? -term : term) / (2n * k + 1n);
    }
    return sum;
  };
  const pi = 16n * atanInv(5n) - 4n * atanInv(239n);
  let frac = pi - 3n * one;
  const out = new Uint32Array(words);
  for (let i = 0; i < words; i++) {
    frac <<= 32n;
    out[i] = Number(frac >> bits);
    frac &= one - 1n;
  }
  initial = out;
  return out;
}

/** One Blowfish key state: P (18 words) and the four S-boxes in one array (S0 at 0, S1 at 256…). */
export class BlowfishState {
  readonly p: Uint32Array;
  readonly s: Uint32Array;
  /** The current block, [L, R]: the cipher works in place to spare allocations in the 2^cost loop. */
  private readonly lr = new Uint32Array(2);

  constructor() {
    const pi = piWords();
    this.p = pi.slice(0, 18);
    this.s = pi.slice(18);
  }

  /** Encrypts the block in `lr` (16 rounds, Feistel structure). */
  private encipher(lr: Uint32Array): void {
    const p = this.p;
    const s = this.s;
    let l = lr[0] ^ p[0];
    let r = lr[1];
    for (let i = 1; i <= 16; i += 2) {
      r ^= (((s[l >>> 24] + s[256 | ((l >>> 16) & 0xff)]) ^ s[512 | ((l >>> 8) & 0xff)]) + s[768 | (l & 0xff)]) ^ p[i];
      l ^= (((s[r >>> 24] + s[256 | ((r >>> 16) & 0xff)]) ^ s[512 | ((r >>> 8) & 0xff)]) + s[768 | (r & 0xff)]) ^ p[i + 1];
    }
    lr[0] = r ^ p[17];
    lr[1] = l;
  }

  /** Encrypts words in place (ECB), two at a time. */
  encryptWords(words: Uint32Array): void {
    const lr = this.lr;
    for (let i = 0; i < words.length; i += 2) {
      lr[0] = words[i];
      lr[1] = words[i + 1];
      this.encipher(lr);
      words[i] = lr[0];
      words[i + 1] = lr[1];
    }
  }

  /**
   * ExpandKey(state, salt, key) of eksblowfish: the key is XORed into P cyclically, then P and
   * the S-boxes are replaced by successive encryptions of a block that is XORed with the salt
   * cyclically before each one. With an all-zero salt it is Blowfish's own key schedule
   * (`expand0`, the 2^cost loop).
   */
  expand(key: Uint8Array, salt: Uint8Array | null): void {
    const p = this.p;
    let kpos = 0;
    for (let i = 0; i < 18; i++) {
      let w = 0;
      for (let j = 0; j < 4; j++) {
        w = (w << 8) | key[kpos];
        kpos = (kpos + 1) % key.length;
      }
      p[i] ^= w;
    }
    const lr = this.lr;
    lr[0] = 0;
    lr[1] = 0;
    let spos = 0;
    const nextSalt = (): number => {
      let w = 0;
      for (let j = 0; j < 4; j++) {
        w = (w << 8) | salt![spos];
        spos = (spos + 1) % salt!.length;
      }
      return w;
    };
    const fill = (target: Uint32Array) => {
      for (let i = 0; i < target.length; i += 2) {
        if (salt) {
          lr[0] ^= nextSalt();
          lr[1] ^= nextSalt();
        }
        this.encipher(lr);
        target[i] = lr[0];
        target[i + 1] = lr[1];
      }
    };
    fill(p);
    fill(this.s);
  }
}
