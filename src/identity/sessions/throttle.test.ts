import { describe, expect, it } from 'vitest';
import { clientRedirect } from './browser-flow';
import { afterFailure, lockRemaining, throttleKey, THROTTLE } from './throttle';

describe('throttle policy', () => {
  const key = 'k';
  const fail = (n: number, kind: 'email' | 'ip' = 'email', at = 1000) => {
    let row = undefined as ReturnType<typeof afterFailure> | undefined;
    for (let i = 0; i < n; i++) row = afterFailure(row, key, kind, at);
    return row!;
  };

  it('locks from the last free failure on, doubling, capped', () => {
    expect(lockRemaining(fail(THROTTLE.emailFreeFailures - 1), 1000)).toBe(0);
    expect(lockRemaining(fail(THROTTLE.emailFreeFailures), 1000)).toBe(30);
    expect(lockRemaining(fail(THROTTLE.emailFreeFailures + 1), 1000)).toBe(60);
    expect(lockRemaining(fail(THROTTLE.emailFreeFailures + 10), 1000)).toBe(THROTTLE.maxLockSeconds);
    expect(lockRemaining(fail(THROTTLE.ipFreeFailures - 1, 'ip'), 1000)).toBe(0);
    expect(lockRemaining(fail(THROTTLE.ipFreeFailures, 'ip'), 1000)).toBe(30);
  });

  it('forgets a counter after a quiet window, but not while a lock runs', () => {
    const four = fail(4);
    expect(afterFailure(four, key, 'email', 1000 + THROTTLE.windowSeconds).failures).toBe(1);
    const locked = fail(THROTTLE.emailFreeFailures + 10);
    const later = locked.lastFailureAt + THROTTLE.windowSeconds - 1;
    expect(afterFailure(locked, key, 'email', later).failures).toBe(locked.failures + 1);
  });

  it('keys by tenant, kind and normalized email, as digests', () => {
    expect(throttleKey('t1', 'email', ' Alice@Example.com ')).toBe(throttleKey('t1', 'email', 'alice@example.com'));
    expect(throttleKey('t1', 'email', 'a@x')).not.toBe(throttleKey('t2', 'email', 'a@x'));
    expect(throttleKey('t1', 'email', 'a@x')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('clientRedirect', () => {
  it('keeps the registered query and appends the response and iss (RFC 6749 §3.1.2, RFC 9207)', () => {
    const u = new URL(clientRedirect('https://rp.example/cb?tenant=1', { code: 'c', state: 's&t', error: undefined }, 'https://id.example/t/a'));
    expect([...u.searchParams]).toEqual([['tenant', '1'], ['code', 'c'], ['state', 's&t'], ['iss', 'https://id.example/t/a']]);
  });

  it('works for private-use URI schemes of native apps', () => {
    expect(clientRedirect('com.example.app:/cb', { code: 'c' }, 'https://id.example')).toBe('com.example.app:/cb?code=c&iss=https%3A%2F%2Fid.example');
  });
});
