/**
 * How a kind of work is retried (platform/work, issue 22 point 2): exponential backoff from
 * `baseMs`, doubling per attempt up to `capMs`, with `jitter` of each wait drawn at random (0.5:
 * uniformly over its upper half), and never sooner than the remote side's Retry-After. After
 * `maxAttempts` attempts the item is given up.
 */
export interface RetryPolicy {
  baseMs: number;
  capMs: number;
  maxAttempts: number;
  /** The fraction of each wait drawn at random, 0 (none: a fixed schedule) to 1 (full jitter). Default 0.5. */
  jitter?: number;
}

/** The wait before the next attempt once `attempts` attempts failed (the first failure: attempts = 1). */
export function retryDelayMs(policy: RetryPolicy, attempts: number, retryAfterMs?: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  const jitter = Math.min(1, Math.max(0, policy.jitter ?? 0.5));
  const wait = exp * (1 - jitter) + random() * exp * jitter;
  return Math.ceil(Math.max(wait, retryAfterMs ?? 0));
}

/** Whether an item that has had `attempts` attempts may have another. */
export const mayRetry = (policy: RetryPolicy, attempts: number) => attempts < policy.maxAttempts;

/**
 * A Retry-After header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from
 * `nowMs`; undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | readonly string[] | null | undefined, nowMs: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value) as string | null | undefined;
  if (v === undefined || v === null || v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
