import { describe, expect, it, vi } from 'vitest';
import { checkImportedHash, NODE_KDFS, verifyImportedHash, type Kdfs } from './index';
import { BCRYPT_TAIL, DIGEST, ISSUE_HASHES, SALT } from './testing';

/**
 * Cost bounds of imported hashes (issue 21 point 1): an import carried `$2b$31$…`,
 * `$scrypt$ln=4,r=1,p=9999999999$…` and `$scrypt$ln=20,r=1024,p=1$…`, and one wrong password
 * then held a thread for hours or answered 500. Beyond the bounds a hash is refused at import
 * (hash_cost_out_of_bounds) and, when it reached the database some other way, refused at
 * verification without running its key derivation.
 */

const b64 = (n: number, fill: number) => Buffer.alloc(n, fill).toString('base64').replace(/=+$/, '');

/** Beyond one bound of each family (docs/decisions.md, issue 21). */
const BEYOND: [string, string][] = [
  ...ISSUE_HASHES,
  ['bcrypt cost 15', `$2a$15$${BCRYPT_TAIL}`],
  ['scrypt 512 MiB (N=2^18, r=16)', `$scrypt$ln=18,r=16,p=1$${SALT}$${DIGEST}`],
  ['scrypt p=17', `$scrypt$ln=10,r=8,p=17$${SALT}$${DIGEST}`],
  ['scrypt work N·r·p = 2^22', `$scrypt$ln=17,r=8,p=4$${SALT}$${DIGEST}`],
  ['scrypt as Kratos writes it, N=2^21', `$scrypt$ln=2097152,r=8,p=1$${SALT}$${DIGEST}`],
  ['firescrypt rounds 4096', `$firescrypt$ln=14,r=4096,p=1$${SALT}$${b64(64, 1)}$Bw==$${b64(64, 2)}`],
  ['firescrypt p=9999', `$firescrypt$ln=14,r=8,p=9999$${SALT}$${b64(64, 1)}$Bw==$${b64(64, 2)}`],
  ['argon2id 2 GiB (RFC 9106 first choice)', `$argon2id$v=19$m=2097152,t=1,p=4$${SALT}$${DIGEST}`],
  ['argon2id t=100', `$argon2id$v=19$m=65536,t=100,p=1$${SALT}$${DIGEST}`],
  ['argon2i 256 MiB × 8 passes', `$argon2i$v=19$m=262144,t=8,p=1$${SALT}$${DIGEST}`],
  ['argon2d p=200', `$argon2d$v=19$m=65536,t=1,p=200$${SALT}$${DIGEST}`],
  ['pbkdf2-sha256 2,000,001 iterations', `$pbkdf2-sha256$i=2000001,l=32$${SALT}$${DIGEST}`],
  ['pbkdf2-sha1 1,000,000 × 4 blocks (l=64)', `$pbkdf2-sha1$i=1000000,l=64$${SALT}$${b64(64, 3)}`],
  ['passlib pbkdf2-sha512 9,999,999', `$pbkdf2-sha512$9999999$${SALT}$${b64(64, 3)}`],
  ['Django 3,000,000 iterations', `pbkdf2_sha256$3000000$seasalt$${Buffer.alloc(32, 5).toString('base64')}`],
];

/** What the sources really write, at or near the bounds: admitted. */
const ADMITTED: [string, string][] = [
  ['Auth0 bcrypt cost 10', `$2a$10$${BCRYPT_TAIL}`],
  ['bcrypt cost 14', `$2y$14$${BCRYPT_TAIL}`],
  ['Firebase scrypt rounds 8, mem_cost 14', `$firescrypt$ln=14,r=8,p=1$${SALT}$${b64(64, 1)}$Bw==$${b64(64, 2)}`],
  ['Kratos scrypt N=32768 r=8', `$scrypt$ln=32768,r=8,p=1$${SALT}$${DIGEST}`],
  ['passlib scrypt ln=16 r=8', `$scrypt$ln=16,r=8,p=1$${SALT}$${DIGEST}`],
  ['scrypt 256 MiB (N=2^18, r=8)', `$scrypt$ln=18,r=8,p=1$${SALT}$${DIGEST}`],
  ['RFC 7914 scrypt p=16', `$scrypt$ln=10,r=8,p=16$${SALT}$${b64(64, 4)}`],
  ['Keycloak pbkdf2-sha512 210,000 (l=64)', `$pbkdf2-sha512$i=210000,l=64$${SALT}$${b64(64, 3)}`],
  ['Auth0 pbkdf2-sha256 100,000 (l=64)', `$pbkdf2-sha256$i=100000,l=64$${SALT}$${b64(64, 3)}`],
  ['pbkdf2-sha256 2,000,000', `$pbkdf2-sha256$i=2000000,l=32$${SALT}$${DIGEST}`],
  ['Django 5.2 pbkdf2_sha256 1,000,000', `pbkdf2_sha256$1000000$seasalt$${Buffer.alloc(32, 5).toString('base64')}`],
  ['Django 6.0 pbkdf2_sha256 1,200,000', `pbkdf2_sha256$1200000$seasalt$${Buffer.alloc(32, 5).toString('base64')}`],
  ['Keycloak argon2id m=7168 t=5', `$argon2id$v=19$m=7168,t=5,p=1$${SALT}$${DIGEST}`],
  ['Kratos argon2id 128 MiB, p=2×32 CPUs', `$argon2id$v=19$m=131072,t=1,p=64$${SALT}$${DIGEST}`],
  ['RFC 9106 second choice m=64 MiB t=3 p=4', `$argon2id$v=19$m=65536,t=3,p=4$${SALT}$${DIGEST}`],
  ['argon2id 256 MiB × 4 passes', `$argon2id$v=19$m=262144,t=4,p=1$${SALT}$${DIGEST}`],
];

/** KDFs that record their calls and never compute anything. */
function spies() {
  const kdfs = {
    bcrypt: vi.fn(async () => new Uint8Array(23)),
    scrypt: vi.fn(async (_p: Buffer, _s: Buffer, length: number) => Buffer.alloc(length)),
    pbkdf2: vi.fn(async (_p: Buffer, _s: Buffer, _i: number, length: number) => Buffer.alloc(length)),
    argon2: vi.fn(async () => false),
  } satisfies Kdfs;
  const calls = () => Object.values(kdfs).reduce((n, f) => n + f.mock.calls.length, 0);
  return { kdfs, calls };
}

describe('imported hash cost bounds (issue 21)', () => {
  it.each(BEYOND)('%s: refused at import with hash_cost_out_of_bounds', (_name, encoded) => {
    const checked = checkImportedHash(encoded);
    expect(checked?.outOfBounds).toMatch(/./);
    expect(checked?.format).toBeDefined();
  });

  it.each(BEYOND)('%s: refused at verification without running its key derivation', async (_name, encoded) => {
    const { kdfs, calls } = spies();
    expect(await verifyImportedHash(encoded, 'any password', kdfs)).toBe(false);
    expect(calls()).toBe(0);
  });

  it.each(ADMITTED)('%s: admitted, and its key derivation runs', async (_name, encoded) => {
    expect(checkImportedHash(encoded)).toMatchObject({ outOfBounds: undefined });
    const { kdfs, calls } = spies();
    await verifyImportedHash(encoded, 'any password', kdfs);
    expect(calls()).toBe(1);
  });

  it('the real key derivations are the default', async () => {
    expect(await verifyImportedHash('$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm', 'Kk4DQuMMfZL9o', NODE_KDFS)).toBe(true);
  });
});
