/** Test vectors shared by the bounds tests (issue 21 point 1). */

const b64 = (n: number, fill: number) => Buffer.alloc(n, fill).toString('base64').replace(/=+$/, '');
export const SALT = b64(16, 7);
export const DIGEST = b64(32, 9);
/** A bcrypt salt and checksum (crypt_blowfish's), to put behind any `$2x$NN$`. */
export const BCRYPT_TAIL = 'abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui';

/** The three strings of the issue, syntactically valid. */
export const ISSUE_HASHES: [string, string][] = [
  ['bcrypt cost 31', `$2b$31$${BCRYPT_TAIL}`],
  ['scrypt p=9999999999', `$scrypt$ln=4,r=1,p=9999999999$${SALT}$${DIGEST}`],
  ['scrypt ln=20 r=1024 (128 GiB)', `$scrypt$ln=20,r=1024,p=1$${SALT}$${DIGEST}`],
];
