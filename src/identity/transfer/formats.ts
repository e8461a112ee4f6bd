/**
 * The native export formats `engage users import --from` reads (issue 12), each converted to an
 * import record of schemaVersion 1 (schemas.ts) whose password hash is one of the strings
 * hashes/index.ts verifies. A value the conversion cannot make sense of is passed on as it is,
 * so the record fails with the importer's errorCode (malformed_record, unknown_hash_format).
 */
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const b64 = (bytes: Buffer) => bytes.toString('base64');
/** A hash string no verifier accepts: the record then fails with unknown_hash_format. */
const UNSUPPORTED = '$unsupported$';

export type SourceFormat = 'auth0' | 'firebase' | 'keycloak';

export interface FormatOptions {
  /** Upstream provider names in the source → the tenant's identity provider names. */
  providerMap?: Record<string, string>;
  /** Firebase project hash parameters (Authentication → Users → Password hash parameters). */
  firebase?: { signerKey?: string; saltSeparator?: string; rounds?: number; memCost?: number };
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** RFC 4648 §6 base32, no padding. */
export function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let acc = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(acc << (5 - bits)) & 31];
  return out;
}

function decode(value: string, encoding: string | undefined): Buffer | undefined {
  if (encoding === 'hex') return /^([0-9a-fA-F]{2})*$/.test(value) ? Buffer.from(value, 'hex') : undefined;
  if (encoding === 'base64') return Buffer.from(value, 'base64');
  if (encoding === undefined || encoding === 'utf8') return Buffer.from(value, 'utf8');
  return undefined;
}

/**
 * Auth0's `custom_password_hash` (Auth0 docs, "Bulk user import database schema"): PHC and
 * modular-crypt strings pass through; salted SHA digests become a Kratos `$shaN$pf=` string.
 * md4, md5 and hmac are not accepted (import-formats.md lists them; we verify none of them).
 */
function auth0Custom(c: Obj): string {
  const algorithm = str(c.algorithm);
  const hash = obj(c.hash);
  const value = str(hash.value);
  if (!algorithm || value === undefined) return UNSUPPORTED;
  if (['bcrypt', 'argon2', 'pbkdf2', 'ldap'].includes(algorithm)) return value;
  if (!['sha1', 'sha256', 'sha512'].includes(algorithm)) return UNSUPPORTED;
  const passwordEncoding = str(obj(c.password).encoding);
  if (passwordEncoding !== undefined && passwordEncoding !== 'utf8') return UNSUPPORTED;
  const digest = decode(value, str(hash.encoding) ?? 'hex');
  const salt = obj(c.salt);
  const saltValue = str(salt.value);
  const saltBytes = saltValue === undefined ? Buffer.alloc(0) : decode(saltValue, str(salt.encoding) ?? 'utf8');
  if (!digest || !saltBytes) return UNSUPPORTED;
  const template = saltBytes.length === 0 ? '{PASSWORD}' : str(salt.position) === 'suffix' ? '{PASSWORD}{SALT}' : '{SALT}{PASSWORD}';
  return `$${algorithm}$pf=${b64(Buffer.from(template))}$${b64(saltBytes)}$${b64(digest)}`;
}

/** A line of Auth0's bulk user export (NDJSON), or of its bulk import format. */
export function fromAuth0(v: unknown, o: FormatOptions = {}): unknown {
  const u = obj(v);
  const id = obj(u._id);
  const externalId = str(u.user_id) ?? str(u.Id) ?? str(id.$oid) ?? str(u._id);
  const hash = str(u.password_hash) ?? str(u.passwordHash) ?? (u.custom_password_hash ? auth0Custom(obj(u.custom_password_hash)) : undefined);
  const factor = Array.isArray(u.mfa_factors) ? u.mfa_factors.map((f) => obj(obj(f).totp)).find((t) => str(t.secret)) : undefined;
  const identities = (Array.isArray(u.identities) ? u.identities : [])
    .map(obj)
    .filter((i) => i.isSocial === true || (str(i.provider) !== undefined && str(i.provider) !== 'auth0'))
    .map((i) => ({ provider: o.providerMap?.[str(i.provider)!] ?? str(i.provider)!, subject: str(i.user_id) ?? '' }));
  return {
    externalId,
    email: u.email,
    emailVerified: u.email_verified === true,
    active: u.blocked !== true,
    ...(hash !== undefined ? { password: { hash } } : {}),
    ...(factor ? { totp: { secret: str(factor.secret) } } : {}),
    ...(identities.length ? { identities } : {}),
  };
}

/** A user of `firebase auth:export` JSON, with the project's hash parameters. */
export function fromFirebase(v: unknown, o: FormatOptions = {}): unknown {
  const u = obj(v);
  const f = o.firebase ?? {};
  const ph = str(u.passwordHash);
  const hash = ph === undefined
    ? undefined
    : f.signerKey && f.saltSeparator !== undefined && f.rounds && f.memCost
      ? `$firescrypt$ln=${f.memCost},r=${f.rounds},p=1$${str(u.salt) ?? ''}$${ph}$${f.saltSeparator}$${f.signerKey}`
      : UNSUPPORTED;
  const identities = (Array.isArray(u.providerUserInfo) ? u.providerUserInfo : [])
    .map(obj)
    .filter((p) => str(p.providerId) && !['password', 'phone'].includes(str(p.providerId)!))
    .map((p) => ({ provider: o.providerMap?.[str(p.providerId)!] ?? str(p.providerId)!, subject: str(p.rawId) ?? '' }));
  return {
    externalId: str(u.localId),
    email: u.email,
    emailVerified: u.emailVerified === true,
    active: u.disabled !== true,
    ...(hash !== undefined ? { password: { hash } } : {}),
    ...(identities.length ? { identities } : {}),
  };
}

const json = (v: unknown): Obj => {
  if (typeof v !== 'string') return obj(v);
  try {
    return obj(JSON.parse(v));
  } catch {
    return {};
  }
};
const first = (v: unknown): string | undefined => (Array.isArray(v) ? str(v[0]) : str(v));
const unpadded = (s: string) => s.replace(/=+$/, '');

/** Keycloak's stored password credential (PasswordCredentialData / PasswordSecretData) as a hash string. */
function keycloakPassword(credentialData: Obj, secretData: Obj): string {
  const algorithm = str(credentialData.algorithm) ?? 'pbkdf2-sha256';
  const iterations = Number(credentialData.hashIterations);
  const value = str(secretData.value);
  const salt = str(secretData.salt);
  if (!value) return UNSUPPORTED;
  if (algorithm === 'bcrypt') return value; // the common bcrypt extension stores the modular-crypt string
  if (!salt || !Number.isInteger(iterations) || iterations < 1) return UNSUPPORTED;
  const digest = { pbkdf2: 'sha1', 'pbkdf2-sha1': 'sha1', 'pbkdf2-sha256': 'sha256', 'pbkdf2-sha512': 'sha512' }[algorithm];
  if (digest) return `$pbkdf2-${digest}$i=${iterations},l=${Buffer.from(value, 'base64').length}$${salt}$${value}`;
  if (algorithm === 'argon2') {
    const p = obj(credentialData.additionalParameters);
    const type = first(p.type) ?? 'id';
    const version = first(p.version) === '1.0' ? 16 : 19;
    return `$argon2${type}$v=${version}$m=${first(p.memory) ?? 7168},t=${iterations},p=${first(p.parallelism) ?? 1}$${unpadded(salt)}$${unpadded(value)}`;
  }
  return UNSUPPORTED;
}

/** A user of a Keycloak realm export (`users` of realm-export.json or realm-users-N.json). */
export function fromKeycloak(v: unknown, o: FormatOptions = {}): unknown {
  const u = obj(v);
  const credentials = (Array.isArray(u.credentials) ? u.credentials : []).map(obj);
  const password = credentials.find((c) => c.type === 'password');
  const otp = credentials.find((c) => c.type === 'otp');
  let totp: { secret: string } | { secret: undefined } | undefined;
  if (otp) {
    const cd = json(otp.credentialData);
    const secret = str(json(otp.secretData).value);
    // Keycloak keeps the shared secret as text (its otpauth URI carries base32 of its bytes), or base32 (secretEncoding BASE32).
    const ok = secret && (cd.subType ?? 'totp') === 'totp' && Number(cd.digits ?? 6) === 6 && Number(cd.period ?? 30) === 30 && (cd.algorithm ?? 'HmacSHA1') === 'HmacSHA1';
    totp = { secret: ok ? (cd.secretEncoding === 'BASE32' ? secret.replace(/=+$/, '') : base32(Buffer.from(secret, 'utf8'))) : undefined };
  }
  const identities = (Array.isArray(u.federatedIdentities) ? u.federatedIdentities : [])
    .map(obj)
    .map((f) => ({ provider: o.providerMap?.[str(f.identityProvider) ?? ''] ?? str(f.identityProvider) ?? '', subject: str(f.userId) ?? '' }));
  return {
    externalId: str(u.id) ?? str(u.username),
    email: u.email,
    emailVerified: u.emailVerified === true,
    active: u.enabled !== false,
    ...(password ? { password: { hash: keycloakPassword(json(password.credentialData), json(password.secretData)) } } : {}),
    ...(totp ? { totp } : {}),
    ...(identities.length ? { identities } : {}),
  };
}

export const CONVERTERS: Record<SourceFormat, (v: unknown, o: FormatOptions) => unknown> = { auth0: fromAuth0, firebase: fromFirebase, keycloak: fromKeycloak };
