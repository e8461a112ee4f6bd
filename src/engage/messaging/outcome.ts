/** What one attempt at a provider came to; delivery.ts turns it into the delivery's next state. */
export type AttemptOutcome =
  | { kind: 'sent' }
  /** Try again later: 429, 5xx, a lost connection; `retryAfterMs` from the provider's Retry-After. */
  | { kind: 'retry'; error: string; retryAfterMs?: number }
  /** Permanent for this delivery; the token stays (a payload or configuration problem). */
  | { kind: 'failed'; error: string }
  /** The token is no longer valid (APNs 410 / BadDeviceToken, FCM UNREGISTERED): cleared unless registered again since `sinceMs`. */
  | { kind: 'unregistered'; error: string; sinceMs: number };

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
