import { createCipheriv, createDecipheriv, hash, hkdfSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A random opaque secret of 256 bits, base64url, optionally with a readable prefix. */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function newId(): string {
  return randomUUID();
}

/**
 * A UUIDv7 (RFC 9562 §5.7): the Unix time in milliseconds, then 74 random bits. For rows written
 * at a high rate whose id is their primary key (automation runs): consecutive ids sort together,
 * so the inserts of one commit land on the same B-tree pages instead of one random page each.
 * Never a secret (its first 48 bits tell when it was made).
 */
export function newTimeOrderedId(nowMs = Date.now()): string {
  const random = randomUUID();
  const t = nowMs.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${random.slice(15)}`;
}

/** Secrets are stored as SHA-256 digests (hex); lookups go by digest, so equality is on digests. */
export function digest(secret: string): string {
  // One-shot crypto.hash (Node 20.12+): a third of createHash's cost on a short input.
  return hash('sha256', secret, 'hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/**
 * A 32-byte key for one purpose, derived from the master key: HKDF-SHA256 (RFC 5869) with no salt
 * and the purpose label as info (`engage <purpose> v1`), as the recovery-code and federation-broker
 * keys are. The same on every process that holds the master key; one label per purpose, so a key
 * never serves two.
 */
export function deriveKey(masterKey: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), label, 32));
}

/** PKCE S256 (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return hash('sha256', verifier, 'base64url');
}

/**
 * Envelope encryption of private key material with the master key: AES-256-GCM,
 * stored as `v1.<iv>.<tag>.<ciphertext>` (base64url). The associated data binds the
 * ciphertext to its row so a blob cannot be moved to another key id.
 */
export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('master key must be 32 bytes');
  }

  seal(plain: string, aad: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string, aad: string): string {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unsupported sealed format');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
  }
}
