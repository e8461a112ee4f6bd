import { HOTP, Secret, TOTP } from 'otpauth';
import { safeEqual } from '../../platform/crypto';

/**
 * TOTP as RFC 6238 §4 with the RFC's defaults, which every authenticator app implements:
 * HMAC-SHA-1, six digits, 30-second steps from the Unix epoch.
 */
export const TOTP_PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** RFC 6238 §5.2: accept one step either side of now for clock drift and typing time. */
export const TOTP_WINDOW = 1;
/** RFC 4226 §4 R6: a shared secret of at least 128 bits; 160 bits is the RFC's recommendation. */
const SECRET_BYTES = 20;

export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The 30-second step of an instant (RFC 6238 §4.2: T = floor((now - T0) / X)). */
export function stepAt(epochMs: number): number {
  return Math.floor(epochMs / 1000 / TOTP_PARAMS.period);
}

export function totpCode(secretBase32: string, step: number, digits: number = TOTP_PARAMS.digits, algorithm: string = TOTP_PARAMS.algorithm): string {
  return HOTP.generate({ secret: Secret.fromBase32(secretBase32), counter: step, digits, algorithm });
}

/**
 * The step within the window whose code is `code`, or undefined. Every candidate is compared
 * in constant time; later steps win so a code from the future step is not mistaken for an older one.
 */
export function matchStep(secretBase32: string, code: string, epochMs: number): number | undefined {
  const token = typeof code === 'string' ? code.replace(/\s+/g, '') : '';
  if (!/^\d{6}$/.test(token)) return undefined;
  const now = stepAt(epochMs);
  let found: number | undefined;
  for (let d = -TOTP_WINDOW; d <= TOTP_WINDOW; d++) {
    if (safeEqual(totpCode(secretBase32, now + d), token)) found = now + d;
  }
  return found;
}

/** The otpauth:// URI authenticator apps scan (Key Uri Format: issuer, label, secret, parameters). */
export function otpauthUri(secretBase32: string, issuer: string, account: string): string {
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secretBase32), ...TOTP_PARAMS }).toString();
}
