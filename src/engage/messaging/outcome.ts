/** What one attempt at a provider came to; delivery.ts turns it into the delivery's next state. */
export type AttemptOutcome =
  | { kind: 'sent' }
  /** Try again later: 429, 5xx, a lost connection; `retryAfterMs` from the provider's Retry-After. */
  | { kind: 'retry'; error: string; retryAfterMs?: number }
  /** Permanent for this delivery; the token stays (a payload or configuration problem). */
  | { kind: 'failed'; error: string }
  /** The token is no longer valid (APNs 410 / BadDeviceToken, FCM UNREGISTERED): cleared unless registered again since `sinceMs`. */
  | { kind: 'unregistered'; error: string; sinceMs: number };

/** Retry-After, read once for every kind of work (platform/work). */
export { retryAfterMs } from '../../platform/work/retry';
