import { digest } from '../../platform/crypto';
import type { ThrottleRow } from './store';

/**
 * Failed browser sign-in throttling (docs/decisions.md "Browser sign-in"). Two counters per
 * attempt: the tenant and email (guessing one account's password) and the tenant and client
 * address (spraying many accounts). Unknown emails count exactly like known ones, so the
 * answers never reveal whether an account exists. Past the free failures each further
 * failure locks the key for an exponentially growing delay, capped.
 */
export const THROTTLE = {
  /** Failures allowed per email before the first lock. */
  emailFreeFailures: 5,
  /** Failures allowed per client address before the first lock. */
  ipFreeFailures: 20,
  /** Emailed codes (native sign-in, registration, recovery) a client address may ask for before the first lock. */
  mailFreeRequests: 20,
  /** Wrong device user codes (RFC 8628 §5.1) a client address may enter before the first lock. */
  deviceFreeFailures: 10,
  /** First lock; doubles with each further failure. */
  baseLockSeconds: 30,
  maxLockSeconds: 15 * 60,
  /** A counter with no failure for this long (and no lock running) starts again from zero. */
  windowSeconds: 15 * 60,
} as const;

/** `mail` counts the emailed codes a client address asks for: every request, not only failures. */
export type ThrottleKind = 'email' | 'ip' | 'mail' | 'device';

/** Keys are digests: the table holds no email addresses or IP addresses in clear. */
export function throttleKey(tenantId: string, kind: ThrottleKind, value: string): string {
  return digest(`${tenantId}|${kind}|${kind === 'email' ? value.trim().toLowerCase() : value}`);
}

/** Seconds until the key may try again, or 0. */
export function lockRemaining(row: ThrottleRow | undefined, now: number): number {
  return row && row.lockedUntil > now ? row.lockedUntil - now : 0;
}

/** The counter after one more failure at `now`. */
export function afterFailure(row: ThrottleRow | undefined, key: string, kind: ThrottleKind, now: number): ThrottleRow {
  const stale = !row || (row.lastFailureAt + THROTTLE.windowSeconds <= now && row.lockedUntil <= now);
  const failures = stale ? 1 : row.failures + 1;
  const free = { email: THROTTLE.emailFreeFailures, ip: THROTTLE.ipFreeFailures, mail: THROTTLE.mailFreeRequests, device: THROTTLE.deviceFreeFailures }[kind];
  const over = failures - free;
  const lock = over >= 0 ? Math.min(THROTTLE.baseLockSeconds * 2 ** over, THROTTLE.maxLockSeconds) : 0;
  return { key, failures, lastFailureAt: now, lockedUntil: lock ? now + lock : 0 };
}
