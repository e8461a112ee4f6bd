import { createCipheriv, createHash, pbkdf2, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { loadArgon2 } from '../../../platform/native';
import { BCRYPT_PATTERN, bcryptRaw, verifyBcrypt } from './bcrypt';
import { argon2Problem, bcryptProblem, pbkdf2Problem, scryptProblem } from './bounds';

/**
 * Password hashes that migrations bring (../shared/notes/import-formats.md), kept as imported and
 * verified once, at their user's first sign-in, before being replaced with argon2id
 * (users/service.ts `verifyPassword`). Each format is one self-describing string, in the form its
 * source system writes or the form Ory Kratos documents for importing it (the CLI's `--from`
 * readers convert Auth0, Firebase and Keycloak exports to these):
 *
 * | format          | string                                                                   |
 * |-----------------|--------------------------------------------------------------------------|
 * | bcrypt          | `$2a$`/`$2b$`/`$2y$` modular crypt                                       |
 * | argon2          | `$argon2i$`, `$argon2d$`, `$argon2id$` PHC strings                       |
 * | scrypt          | `$scrypt$ln=…,r=…,p=…$salt$hash` (ln ≤ 63: log2 N as passlib writes it; otherwise N itself as Kratos does) |
 * | pbkdf2          | `$pbkdf2-<sha1|sha256|sha512>$i=N,l=L$salt$hash` (Kratos), `$pbkdf2[-sha…]$N$salt$hash` (passlib) |
 * | django-pbkdf2   | `pbkdf2_sha256$N$salt$hash`, `pbkdf2_sha1$…` (Django)                    |
 * | firebase-scrypt | `$firescrypt$ln=<mem_cost>,r=<rounds>,p=1$salt$hash$saltSeparator$signerKey` |
 * | salted-sha      | `$sha1|sha256|sha512$pf=<base64 template, e.g. {SALT}{PASSWORD}>$salt$hash` |
 * | ldap            | RFC 2307 `{SHA}`, `{SSHA}`, `{SHA256}`, `{SSHA256}`, `{SHA384}`, `{SSHA384}`, `{SHA512}`, `{SSHA512}` |
 *
 * Salts and digests are base64 (standard or URL alphabet, padding optional; passlib's `.` for `+`).
 * Every cost parameter is bounded (./bounds.ts): beyond the bounds a hash is refused, at import
 * and again before verification, without running its key derivation.
 */
export type HashFormat = 'bcrypt' | 'argon2' | 'scrypt' | 'pbkdf2' | 'django-pbkdf2' | 'firebase-scrypt' | 'salted-sha' | 'ldap';

export const HASH_FORMATS: readonly HashFormat[] = ['bcrypt', 'argon2', 'scrypt', 'pbkdf2', 'django-pbkdf2', 'firebase-scrypt', 'salted-sha', 'ldap'];

type Digest = 'sha1' | 'sha256' | 'sha384' | 'sha512' | 'sha3-224' | 'sha3-384' | 'sha224';

interface Scrypt {
  kind: 'scrypt';
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}
interface Pbkdf2 {
  kind: 'pbkdf2';
  digest: Digest;
  iterations: number;
  salt: Buffer;
  hash: Buffer;
}
interface Firebase {
  kind: 'firebase-scrypt';
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
  separator: Buffer;
  signerKey: Buffer;
}
interface SaltedSha {
  kind: 'salted-sha';
  digest: Digest;
  template: string;
  salt: Buffer;
  hash: Buffer;
}
interface Bcrypt {
  kind: 'bcrypt';
  cost: number;
}
interface Argon2 {
  kind: 'argon2';
  m: number;
  t: number;
  p: number;
  length: number;
}

type Parsed = Scrypt | Pbkdf2 | Firebase | SaltedSha | Bcrypt | Argon2;

/** Base64 in any of the alphabets the sources use: standard, URL-safe, passlib's adapted (`.`). */
function b64(s: string | undefined): Buffer | undefined {
  if (s === undefined || !/^[A-Za-z0-9+/._-]*={0,2}$/.test(s)) return undefined;
  return Buffer.from(s.replace(/\./g, '+').replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function params(s: string | undefined): Record<string, number> | undefined {
  if (s === undefined) return undefined;
  const out: Record<string, number> = {};
  for (const part of s.split(',')) {
    const m = /^([a-z]+)=(\d{1,10})$/.exec(part);
    if (!m) return undefined;
    out[m[1]] = Number(m[2]);
  }
  return out;
}

const PBKDF2_DIGESTS: Record<string, Digest> = {
  // Kratos maps sha224 and sha384 to SHA3 (import-formats.md); passlib's bare `pbkdf2` is SHA-1.
  pbkdf2: 'sha1',
  'pbkdf2-sha1': 'sha1',
  'pbkdf2-sha224': 'sha3-224',
  'pbkdf2-sha256': 'sha256',
  'pbkdf2-sha384': 'sha3-384',
  'pbkdf2-sha512': 'sha512',
};

const LDAP_DIGESTS: Record<string, { digest: Digest; length: number; salted: boolean }> = {
  SHA: { digest: 'sha1', length: 20, salted: false },
  SSHA: { digest: 'sha1', length: 20, salted: true },
  SHA256: { digest: 'sha256', length: 32, salted: false },
  SSHA256: { digest: 'sha256', length: 32, salted: true },
  SHA384: { digest: 'sha384', length: 48, salted: false },
  SSHA384: { digest: 'sha384', length: 48, salted: true },
  SHA512: { digest: 'sha512', length: 64, salted: false },
  SSHA512: { digest: 'sha512', length: 64, salted: true },
};

function parse(encoded: string): Parsed | undefined {
  if (typeof encoded !== 'string' || encoded.length > 2048) return undefined;
  if (BCRYPT_PATTERN.test(encoded)) return { kind: 'bcrypt', cost: Number(encoded.slice(4, 6)) };
  const argon2 = /^\$argon2(?:id|i|d)\$(?:v=(?:16|19)\$)?m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$[A-Za-z0-9+/]+\$([A-Za-z0-9+/]+)$/.exec(encoded);
  if (argon2) return { kind: 'argon2', m: Number(argon2[1]), t: Number(argon2[2]), p: Number(argon2[3]), length: Buffer.from(argon2[4], 'base64').length };

  const ldap = /^\{([A-Z0-9]+)\}([A-Za-z0-9+/]+={0,2})$/.exec(encoded);
  if (ldap) {
    const d = LDAP_DIGESTS[ldap[1]];
    const raw = Buffer.from(ldap[2], 'base64');
    if (!d || raw.length < d.length || (!d.salted && raw.length !== d.length) || (d.salted && raw.length === d.length)) return undefined;
    return { kind: 'salted-sha', digest: d.digest, template: '{PASSWORD}{SALT}', salt: raw.subarray(d.length), hash: raw.subarray(0, d.length) };
  }

  const django = /^pbkdf2_(sha1|sha256)\$(\d{1,10})\$([^$]{1,128})\$([A-Za-z0-9+/]+={0,2})$/.exec(encoded);
  if (django) {
    // Django (django/contrib/auth/hashers.py): the salt is used as text, the hash is standard base64.
    const iterations = Number(django[2]);
    return { kind: 'pbkdf2', digest: django[1] as Digest, iterations, salt: Buffer.from(django[3], 'utf8'), hash: Buffer.from(django[4], 'base64') };
  }

  const parts = encoded.split('$');
  if (parts[0] !== '') return undefined;
  const id = parts[1];
  if (id === 'scrypt' && parts.length === 5) {
    const p = params(parts[2]);
    const salt = b64(parts[3]);
    const hash = b64(parts[4]);
    if (!p || p.ln === undefined || !salt || !hash || hash.length < 16) return undefined;
    // passlib writes log2(N) ("ln=16"); Kratos writes N itself ("ln=16384"): tell them apart by size.
    const n = p.ln <= 63 ? 2 ** p.ln : p.ln;
    if (n < 2 || !Number.isInteger(Math.log2(n))) return undefined;
    return { kind: 'scrypt', n, r: p.r ?? 8, p: p.p ?? 1, salt, hash };
  }
  if (id === 'firescrypt' && parts.length === 7) {
    const p = params(parts[2]);
    const [salt, hash, separator, signerKey] = [b64(parts[3]), b64(parts[4]), b64(parts[5]), b64(parts[6])];
    // ln is Firebase's mem_cost, log2 N; r its rounds.
    if (!p || p.ln === undefined || p.ln < 1 || p.ln > 63 || !salt || !hash || !separator || !signerKey || hash.length === 0) return undefined;
    return { kind: 'firebase-scrypt', n: 2 ** p.ln, r: p.r, p: p.p ?? 1, salt, hash, separator, signerKey };
  }
  if (id in PBKDF2_DIGESTS && parts.length === 5) {
    let iterations: number | undefined;
    let length: number | undefined;
    if (/^\d+$/.test(parts[2])) iterations = Number(parts[2]);
    else {
      const p = params(parts[2]);
      iterations = p?.i;
      length = p?.l;
    }
    const salt = b64(parts[3]);
    const hash = b64(parts[4]);
    if (!iterations || !salt || !hash || hash.length === 0) return undefined;
    if (length !== undefined && length !== hash.length) return undefined;
    return { kind: 'pbkdf2', digest: PBKDF2_DIGESTS[id], iterations, salt, hash };
  }
  if ((id === 'sha1' || id === 'sha256' || id === 'sha512') && parts.length === 5) {
    const pf = /^pf=([A-Za-z0-9+/]+={0,2})$/.exec(parts[2]);
    const salt = b64(parts[3]);
    const hash = b64(parts[4]);
    if (!pf || !salt || !hash) return undefined;
    const template = Buffer.from(pf[1], 'base64').toString('utf8');
    if (!template.includes('{PASSWORD}')) return undefined;
    const length = { sha1: 20, sha256: 32, sha512: 64 }[id];
    if (hash.length !== length) return undefined;
    return { kind: 'salted-sha', digest: id, template, salt, hash };
  }
  return undefined;
}

function formatOf(encoded: string, p: Parsed): HashFormat {
  if (p.kind === 'salted-sha') return encoded.startsWith('{') ? 'ldap' : 'salted-sha';
  if (p.kind === 'pbkdf2' && encoded.startsWith('pbkdf2_')) return 'django-pbkdf2';
  return p.kind;
}

/** Why a parsed hash's cost parameters are beyond the bounds (./bounds.ts), or undefined. */
function costProblem(p: Parsed): string | undefined {
  switch (p.kind) {
    case 'bcrypt':
      return bcryptProblem(p.cost);
    case 'argon2':
      return argon2Problem(p.m, p.t, p.p, p.length);
    case 'scrypt':
      return scryptProblem(p.n, p.r, p.p, p.hash.length);
    case 'firebase-scrypt':
      return scryptProblem(p.n, p.r, p.p, 64);
    case 'pbkdf2':
      return pbkdf2Problem(p.digest, p.iterations, p.hash.length);
    case 'salted-sha':
      return undefined; // one digest: no cost parameter
  }
}

/**
 * What an import makes of a hash string: undefined when it is no format we verify; otherwise its
 * format, and `outOfBounds` (for people: which parameter, which bound) when a cost parameter is
 * beyond the bounds, which the importer reports as hash_cost_out_of_bounds.
 */
export function checkImportedHash(encoded: string): { format: HashFormat; outOfBounds?: string } | undefined {
  const p = parse(encoded);
  if (!p) return undefined;
  return { format: formatOf(encoded, p), outOfBounds: costProblem(p) };
}

/** The format of an imported hash string, or undefined when it is not one we verify (or beyond the bounds). */
export function hashFormatOf(encoded: string): HashFormat | undefined {
  const c = checkImportedHash(encoded);
  return c && !c.outOfBounds ? c.format : undefined;
}

/** The key derivations verification runs: node:crypto, @node-rs/argon2, our bcrypt (tests pass spies). */
export interface Kdfs {
  bcrypt(password: Uint8Array, salt: Uint8Array, cost: number): Promise<Uint8Array>;
  scrypt(password: Buffer, salt: Buffer, length: number, o: ScryptOptions): Promise<Buffer>;
  pbkdf2(password: Buffer, salt: Buffer, iterations: number, length: number, digest: string): Promise<Buffer>;
  /** Whether `password` matches the argon2 PHC string. */
  argon2(encoded: string, password: string): Promise<boolean>;
}

export const NODE_KDFS: Kdfs = {
  bcrypt: bcryptRaw,
  scrypt: (password, salt, length, o) => new Promise((resolve, reject) => scrypt(password, salt, length, o, (e, key) => (e ? reject(e) : resolve(key)))),
  pbkdf2: (password, salt, iterations, length, digest) =>
    new Promise((resolve, reject) => pbkdf2(password, salt, iterations, length, digest, (e, key) => (e ? reject(e) : resolve(key)))),
  argon2: (encoded, password) => loadArgon2().verify(encoded, password).catch(() => false),
};

// scrypt's working memory, 128·N·r (+ 128·r·p), with room: within the bounds, at most 257 MiB.
const maxmem = (p: { n: number; r: number; p: number }) => 128 * p.n * p.r + 128 * p.r * p.p + (1 << 20);

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b);

/** `{SALT}`/`{PASSWORD}` substituted in the template with the raw bytes (Kratos's `pf`). */
function salted(template: string, salt: Buffer, password: Buffer): Buffer {
  const pieces: Buffer[] = [];
  for (const part of template.split(/(\{SALT\}|\{PASSWORD\})/)) {
    if (part === '{SALT}') pieces.push(salt);
    else if (part === '{PASSWORD}') pieces.push(password);
    else if (part) pieces.push(Buffer.from(part, 'utf8'));
  }
  return Buffer.concat(pieces);
}

/**
 * Whether `password` matches the imported hash `encoded`. False for a string of no known
 * format, and false without running anything for one beyond the cost bounds (a hash that reached
 * the database other than through an import, or before the bounds). CPU-heavy work (scrypt,
 * PBKDF2, argon2) runs off the event loop; bcrypt runs on it, yielding.
 */
export async function verifyImportedHash(encoded: string, password: string, kdfs: Kdfs = NODE_KDFS): Promise<boolean> {
  const p = parse(encoded);
  if (!p || costProblem(p) || typeof password !== 'string') return false;
  const pw = Buffer.from(password, 'utf8');
  switch (p.kind) {
    case 'bcrypt':
      return verifyBcrypt(encoded, password, kdfs.bcrypt);
    case 'argon2':
      return kdfs.argon2(encoded, password);
    case 'scrypt': {
      const key = await kdfs.scrypt(pw, p.salt, p.hash.length, { N: p.n, r: p.r, p: p.p, maxmem: maxmem(p) });
      return same(key, p.hash);
    }
    case 'pbkdf2':
      return same(await kdfs.pbkdf2(pw, p.salt, p.iterations, p.hash.length, p.digest), p.hash);
    case 'firebase-scrypt': {
      // Firebase's modified scrypt (github.com/firebase/scrypt): a 64-byte scrypt key of the
      // password with salt ‖ separator, then AES-256-CTR (zero IV) of the project's signer key
      // under its first 32 bytes; the result is the stored hash.
      const derived = await kdfs.scrypt(pw, Buffer.concat([p.salt, p.separator]), 64, { N: p.n, r: p.r, p: p.p, maxmem: maxmem(p) });
      const c = createCipheriv('aes-256-ctr', derived.subarray(0, 32), Buffer.alloc(16));
      const out = Buffer.concat([c.update(p.signerKey), c.final()]);
      return same(out.subarray(0, p.hash.length), p.hash) && out.length >= p.hash.length;
    }
    case 'salted-sha':
      return same(createHash(p.digest).update(salted(p.template, p.salt, pw)).digest(), p.hash);
  }
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomText = (n: number, alphabet = BCRYPT_ALPHABET.slice(2)) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');
/** Random bytes as long as the base64 `segment` decodes to, in unpadded standard base64. */
const randomLike = (segment: string) => randomBytes(b64(segment)?.length ?? 0).toString('base64').replace(/=+$/, '');

/**
 * A hash of the same format and cost parameters as `encoded`, with a random salt and digest:
 * verifying it runs the same key derivation at the same cost, and no password matches it in
 * practice. Accounts without that hash verify it so a password check costs the same for every
 * account of a tenant that holds imported hashes (issue 21 point 4, users/service.ts). Undefined
 * when `encoded` is no hash we verify (unknown, or beyond the bounds).
 */
export function costTwin(encoded: string): string | undefined {
  const c = checkImportedHash(encoded);
  if (!c || c.outOfBounds) return undefined;
  if (c.format === 'bcrypt') return encoded.slice(0, 7) + randomText(53, BCRYPT_ALPHABET);
  if (c.format === 'ldap') {
    const [, scheme, body] = /^(\{[A-Z0-9]+\})(.*)$/.exec(encoded)!;
    return scheme + randomBytes(Buffer.from(body, 'base64').length).toString('base64');
  }
  const parts = encoded.split('$');
  if (c.format === 'django-pbkdf2') {
    // pbkdf2_sha256$N$salt$hash: a text salt, a padded standard base64 hash.
    parts[2] = randomText(parts[2].length);
    parts[3] = randomBytes(Buffer.from(parts[3], 'base64').length).toString('base64');
    return parts.join('$');
  }
  // `$id$params$salt$hash` (argon2: `$id$v=19$params$salt$hash`); Firebase's salt and hash come
  // before its separator and signer key, which stay (the project's, not the account's).
  const [salt, hash] = c.format === 'firebase-scrypt' ? [3, 4] : [parts.length - 2, parts.length - 1];
  parts[salt] = randomLike(parts[salt]);
  parts[hash] = randomLike(parts[hash]);
  return parts.join('$');
}
