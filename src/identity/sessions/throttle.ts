import { isIPv6 } from 'node:net';
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
  /** Device authorizations (RFC 8628 §3.1) a client address may start before the first lock: each is a row and a code to guess against. */
  deviceStartFreeRequests: 20,
  /**
   * Emailed codes (sign-in, registration, recovery) one email address may have checked before the
   * first lock, across its challenges and client addresses: each code allows five tries and a new
   * one comes every minute, so without this budget many client addresses could try thousands a day.
   */
  codeFreeAttempts: 10,
  /** First lock; doubles with each further failure. */
  baseLockSeconds: 30,
  maxLockSeconds: 15 * 60,
  /** A counter with no failure for this long (and no lock running) starts again from zero. */
  windowSeconds: 15 * 60,
} as const;

/**
 * `mail` and `deviceStart` count every request of a client address (emailed codes, device
 * authorizations), not only failures; `code` every emailed code checked for an email address
 * (cleared by a right one).
 */
export type ThrottleKind = 'email' | 'ip' | 'mail' | 'device' | 'deviceStart' | 'code';

/**
 * Keys are digests: the table holds no email addresses or IP addresses in clear. A client
 * address counts by what one client holds: an IPv4 address (also written IPv4-mapped,
 * `::ffff:192.0.2.1`), or the /64 prefix of an IPv6 address, which one host or subscriber
 * usually has whole (RFC 6177), so that cycling through it buys no attempts.
 */
export function throttleKey(tenantId: string, kind: ThrottleKind, value: string): string {
  return digest(`${tenantId}|${kind}|${kind === 'email' || kind === 'code' ? value.trim().toLowerCase() : clientOf(value)}`);
}

/** The throttled unit of a client address (above); anything that is not an IPv6 address is kept as it is. */
export function clientOf(address: string): string {
  if (!isIPv6(address)) return address;
  const a = address.toLowerCase().split('%')[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1];
  // An embedded IPv4 tail is two groups; `::` stands for as many zero groups as are missing.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  const text = tail ? `${a.slice(0, tail.index)}${((+tail[1] << 8) | +tail[2]).toString(16)}:${((+tail[3] << 8) | +tail[4]).toString(16)}` : a;
  const [head, rest] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = rest === undefined ? [] : rest ? rest.split(':') : [];
  const groups = rest === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** Seconds until the key may try again, or 0. */
export function lockRemaining(row: ThrottleRow | undefined, now: number): number {
  return row && row.lockedUntil > now ? row.lockedUntil - now : 0;
}

/** The counter after one more failure at `now`. */
export function afterFailure(row: ThrottleRow | undefined, key: string, kind: ThrottleKind, now: number): ThrottleRow {
  const stale = !row || (row.lastFailureAt + THROTTLE.windowSeconds <= now && row.lockedUntil <= now);
  const failures = stale ? 1 : row.failures + 1;
  const free = {
    email: THROTTLE.emailFreeFailures,
    ip: THROTTLE.ipFreeFailures,
    mail: THROTTLE.mailFreeRequests,
    device: THROTTLE.deviceFreeFailures,
    deviceStart: THROTTLE.deviceStartFreeRequests,
    code: THROTTLE.codeFreeAttempts,
  }[kind];
  const over = failures - free;
  const lock = over >= 0 ? Math.min(THROTTLE.baseLockSeconds * 2 ** over, THROTTLE.maxLockSeconds) : 0;
  return { key, failures, lastFailureAt: now, lockedUntil: lock ? now + lock : 0 };
}
