import { createHash, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { piWords } from './blowfish';
import { costTwin, hashFormatOf, NODE_KDFS, verifyImportedHash, type HashFormat, type Kdfs } from './index';

const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/**
 * [format, source of the vector, encoded hash, password]. Each vector comes from the source
 * system's documentation or test suite (named per row); a wrong password must fail for each.
 */
const VECTORS: [HashFormat, string, string, string][] = [
  // OpenBSD / Openwall crypt_blowfish test vectors (wrapper.c), also in John the Ripper's BF_fmt.c.
  ['bcrypt', 'crypt_blowfish wrapper.c', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U'],
  ['bcrypt', 'crypt_blowfish wrapper.c', '$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a', 'U*U*U'],
  ['bcrypt', 'jBCrypt TestBCrypt (empty password)', '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.', ''],
  // pyca/bcrypt tests/test_bcrypt.py
  ['bcrypt', 'pyca/bcrypt test_bcrypt.py', '$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm', 'Kk4DQuMMfZL9o'],
  // Apache htpasswd -B writes $2y$ (vector as published with Apache's bcrypt support tests)
  ['bcrypt', 'Apache htpasswd -B', '$2y$04$n.BO6Chu8O0K6tZduwSHIegZ.y6hDk990CAFSuv7nB6NJbWkEvW5y', 'correct horse'],
  // phc-winner-argon2 src/test.c
  ['argon2', 'phc-winner-argon2 test.c', '$argon2i$v=19$m=65536,t=2,p=1$ZGlmZnNhbHQ$sDV8zPvvkfOGCw26RHsjSMvv7K2vmQq/6cxAcmxSEnE', 'password'],
  ['argon2', 'phc-winner-argon2 test.c', '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4', 'password'],
  // passuth / RustCrypto tests (argon2d, m=16)
  ['argon2', 'RustCrypto password-hash tests', '$argon2d$v=19$m=16,t=2,p=1$Mmx3eWR3YkJONkhoTGFnNA$HD1EIj2bqdfwQrJDP+FY6w', 'password'],
  // Ory Kratos hash/hash_comparator_test.go
  ['argon2', 'Ory Kratos hash_comparator_test.go', '$argon2id$v=19$m=32,t=2,p=4$cm94YnRVOW5jZzFzcVE4bQ$MNzk5BtR2vUhrp6qQEjRNw', 'test'],
  // passlib.hash.scrypt documentation example (ln = log2 N)
  ['scrypt', 'passlib docs, passlib.hash.scrypt', '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E', 'password'],
  // Ory Kratos hash_comparator_test.go (ln = N itself)
  ['scrypt', 'Ory Kratos hash_comparator_test.go', '$scrypt$ln=16384,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA=$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE=', 'test'],
  // RFC 7914 §12 (scrypt): P="password", S="NaCl", N=1024, r=8, p=16, dkLen=64
  ['scrypt', 'RFC 7914 §12', `$scrypt$ln=10,r=8,p=16$${Buffer.from('NaCl').toString('base64')}$${b64('fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640')}`, 'password'],
  // RFC 6070 (PBKDF2-HMAC-SHA1): P="password", S="salt", c=4096, dkLen=20, in passlib's layout
  ['pbkdf2', 'RFC 6070 §2', `$pbkdf2$4096$${Buffer.from('salt').toString('base64')}$${b64('4b007901b765489abead49d926f721d065a429c1')}`, 'password'],
  ['pbkdf2', 'RFC 6070 §2', `$pbkdf2-sha1$i=2,l=20$${Buffer.from('salt').toString('base64')}$${b64('ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957')}`, 'password'],
  // RFC 7914 §11 (PBKDF2-HMAC-SHA256): P="passwd", S="salt", c=1, dkLen=64
  ['pbkdf2', 'RFC 7914 §11', `$pbkdf2-sha256$i=1,l=64$${Buffer.from('salt').toString('base64')}$${b64('55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783')}`, 'passwd'],
  // Ory Kratos hash_comparator_test.go
  ['pbkdf2', 'Ory Kratos hash_comparator_test.go', '$pbkdf2-sha256$i=100000,l=32$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI', 'test'],
  ['pbkdf2', 'Ory Kratos hash_comparator_test.go', '$pbkdf2-sha512$i=100000,l=32$bdHBpn7OWOivJMVJypy2UqR0UnaD5prQXRZevj/05YU$+wArTfv1a+bNGO1iZrmEdVjhA+lL11wF4/IxpgYfPwc', 'test'],
  // Authelia documentation (passlib layout, digest of 'insecure_secret')
  ['pbkdf2', 'Authelia docs', '$pbkdf2-sha512$310000$c8p78n7pUMln0jzvd4aK4Q$JNRBzwAo0ek5qKn50cFzzvE9RXV88h1wJn5KGiHrD0YKtZaR/nCb2CJPOsKaPK0hjf.9yHxzQGZziziccp6Yng', 'insecure_secret'],
  // Django tests/auth_tests/test_hashers.py (Django 1.8, test_pbkdf2)
  ['django-pbkdf2', 'Django test_hashers.py', 'pbkdf2_sha256$20000$seasalt$oBSd886ysm3AqYun62DOdin8YcfbU1z9cksZSuLP9r0=', 'lètmein'],
  // firebase/scrypt README sample project parameters and account
  ['firebase-scrypt', 'firebase/scrypt README', '$firescrypt$ln=14,r=8,p=1$42xEC+ixf3L2lw==$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$Bw==$jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==', 'user1password'],
  // Ory Kratos hash_comparator_test.go
  ['firebase-scrypt', 'Ory Kratos hash_comparator_test.go', '$firescrypt$ln=14,r=8,p=1$sPtDhWcd1MfdAw==$xbSou7FOl6mChCyzpCPIQ7tku7nsQMTFtyOZSXXd7tjBa4NtimOx7v42Gv2SfzPQu1oxM2/k4SsbOu73wlKe1A==$Bw==$YE0dO4bwD4JnJafh6lZZfkp1MtKzuKAXQcDCJNJNyeCHairWHKENOkbh3dzwaCdizzOspwr/FITUVlnOAwPKyw==', '8x4WjoDbSxJZdR'],
  // Ory Kratos hash_comparator_test.go: pf {SALT}{PASSWORD}, {PASSWORD}%%{SALT}
  ['salted-sha', 'Ory Kratos hash_comparator_test.go', '$sha1$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$2qU2SGWP8viTM1md3FiI3+rjWXQ=', 'test'],
  ['salted-sha', 'Ory Kratos hash_comparator_test.go', '$sha1$pf=e1BBU1NXT1JEfSUle1NBTFR9$NW9wbWtnejAzcg==$YX0AW8/MW5ojUlnzTaR43ucHCog=', 'test'],
  ['salted-sha', 'Ory Kratos hash_comparator_test.go', '$sha256$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$0gfRVLCvtBCk20udLDEY5vNhujWx7RGjwRIS1ebMsLY=', 'test'],
  ['salted-sha', 'Ory Kratos hash_comparator_test.go', '$sha512$pf=e1NBTFR9e1BBU1NXT1JEfQ==$NW9wbWtnejAzcg==$6ctpVuApMNp0CgBXcdHw/GC562eFEFGr4gpgANX8ZYsX+j5B19IkdmOY2Fytsz3QUwSWdGcUjbqwgJGTH0UYvw==', 'test'],
  // Ory Kratos hash_comparator_test.go (RFC 2307 forms)
  ['ldap', 'Ory Kratos hash_comparator_test.go', '{SSHA}JFZFs0oHzxbMwkSJmYVeI8MnTDy/276a', 'test123'],
  ['ldap', 'Ory Kratos hash_comparator_test.go', '{SSHA256}czO44OTV17PcF1cRxWrLZLy9xHd7CWyVYplr1rOhuMlx/7IK', 'test123'],
  ['ldap', 'Ory Kratos hash_comparator_test.go', '{SSHA512}xPUl/px+1cG55rUH4rzcwxdOIPSB2TingLpiJJumN2xyDWN4Ix1WQG3ihnvHaWUE8MYNkvMi5rf0C9NYixHsE6Yh59M=', 'test123'],
  // RFC 2307 {SHA}: base64(SHA-1("password")), FIPS 180 digest 5baa61e4…
  ['ldap', 'RFC 2307 / FIPS 180', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password'],
];

describe('imported password hashes', () => {
  it("Blowfish's initial state is π's hex digits (Schneier's published P and S tables, first and last words)", () => {
    const w = piWords();
    expect([w[0], w[1], w[17], w[18], w[18 + 1023]].map((x) => x.toString(16))).toEqual(['243f6a88', '85a308d3', '8979fb1b', 'd1310ba6', '3ac372e6']);
  });

  it('bcrypt yields to the event loop between rounds: a server keeps answering during a verification', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      // 2^6 rounds: a few yields; the verdict does not matter, the rounds run either way.
      expect(await verifyImportedHash('$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.', '')).toBe(true);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it.each(VECTORS)('%s (%s): %s verifies, a wrong password does not', async (format, _source, encoded, password) => {
    expect(hashFormatOf(encoded)).toBe(format);
    expect(await verifyImportedHash(encoded, password)).toBe(true);
    expect(await verifyImportedHash(encoded, password + 'x')).toBe(false);
    expect(await verifyImportedHash(encoded, 'wrong password')).toBe(false);
  });

  it('a bcrypt password past 72 bytes is cut there, as every bcrypt does (crypt_blowfish vector)', async () => {
    const h = '$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui';
    expect(await verifyImportedHash(h, '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789chars after 72 are ignored')).toBe(true);
    expect(await verifyImportedHash(h, '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567')).toBe(false);
  });

  it('Django pbkdf2_sha1 and SHA-512 PBKDF2 derived independently verify', async () => {
    const salt = 'seasalt2';
    const d = pbkdf2Sync('lètmein', salt, 1000, 20, 'sha1').toString('base64');
    expect(hashFormatOf(`pbkdf2_sha1$1000$${salt}$${d}`)).toBe('django-pbkdf2');
    expect(await verifyImportedHash(`pbkdf2_sha1$1000$${salt}$${d}`, 'lètmein')).toBe(true);
    const unsalted = createHash('sha512').update('secret').digest('base64');
    expect(await verifyImportedHash(`{SHA512}${unsalted}`, 'secret')).toBe(true);
  });

  it.each([
    ['unknown scheme', '$md4$abc'],
    ['plain text', 'hunter2'],
    ['truncated bcrypt', '$2a$10$abc'],
    ['bcrypt cost out of range', '$2a$32$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['scrypt N not a power of two', '$scrypt$ln=16385,r=8,p=1$2npRo7P03Mt8keSoMbyD/tKFWyUzjiQf2svUaNDSrhA=$MiCzNcIplSMqSBrm4HckjYqYhaVPPjTARTzwB1cVNYE='],
    ['scrypt N too large', '$scrypt$ln=30,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E'],
    ['pbkdf2 length disagrees', '$pbkdf2-sha256$i=100000,l=31$1jP+5Zxpxgtee/iPxGgOz0RfE9/KJuDElP1ley4VxXc$QJxzfvdbHYBpydCbHoFg3GJEqMFULwskiuqiJctoYpI'],
    ['salted sha without pf', '$sha1$$NW9wbWtnejAzcg==$2qU2SGWP8viTM1md3FiI3+rjWXQ='],
    ['unknown LDAP scheme', '{SSHAnotExistent}xPUl/px+1cG55rUH4rzcwxdOIPSB2TingLpiJJumN2xyDWN4Ix1WQG3ihnvHaWUE8MYNkvMi5rf0C9NYixHsE6Yh59M='],
    ['LDAP SSHA too short', '{SSHA}tooshort'],
  ])('%s is not a hash we accept', async (_name, encoded) => {
    expect(hashFormatOf(encoded)).toBeUndefined();
    expect(await verifyImportedHash(encoded, 'test')).toBe(false);
  });
});

/** The real derivations, each call recorded with what sets its cost (not the salt's bytes). */
function costRecorder() {
  const calls: unknown[] = [];
  const kdfs: Kdfs = {
    bcrypt: (password, salt, cost) => (calls.push(['bcrypt', cost, salt.length]), NODE_KDFS.bcrypt(password, salt, cost)),
    scrypt: (password, salt, length, o) => (calls.push(['scrypt', length, o, salt.length]), NODE_KDFS.scrypt(password, salt, length, o)),
    pbkdf2: (password, salt, i, length, digest) => (calls.push(['pbkdf2', i, length, digest, salt.length]), NODE_KDFS.pbkdf2(password, salt, i, length, digest)),
    argon2: (encoded, password) => {
      const parts = encoded.split('$');
      calls.push(['argon2', parts.slice(0, -2).join('$'), ...parts.slice(-2).map((x) => Buffer.from(x, 'base64').length)]);
      return NODE_KDFS.argon2(encoded, password);
    },
  };
  return { calls, kdfs };
}

describe('cost twins (issue 21 point 4)', () => {
  it.each(VECTORS)('%s (%s): the twin of %s runs the same derivation at the same cost, and its password does not match it', async (format, _source, encoded, password) => {
    const twin = costTwin(encoded)!;
    expect(hashFormatOf(twin)).toBe(format);
    expect(twin).not.toBe(encoded);
    const real = costRecorder();
    const twinned = costRecorder();
    expect(await verifyImportedHash(encoded, password, real.kdfs)).toBe(true);
    expect(await verifyImportedHash(twin, password, twinned.kdfs)).toBe(false);
    expect(twinned.calls).toEqual(real.calls);
  });

  it('beyond the bounds or unknown: no twin', () => {
    expect(costTwin('$2b$31$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui')).toBeUndefined();
    expect(costTwin('$md4$abc')).toBeUndefined();
  });
});

describe('uuidV7', () => {
  it('is an RFC 9562 version 7 UUID whose first 48 bits are the time, so ids sort by creation', async () => {
    const { uuidV7 } = await import('../ids');
    const a = uuidV7(1_700_000_000_000);
    const b = uuidV7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(1_700_000_000_000);
    expect(a < b).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => uuidV7(5))).size).toBe(1000);
  });
});
