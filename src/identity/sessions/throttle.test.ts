import { describe, expect, it } from 'vitest';
import { clientRedirect } from './browser-flow';
import { afterFailure, clientOf, lockRemaining, throttleKey, THROTTLE } from './throttle';

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

  it('counts an IPv6 client by its /64, an IPv4 one by its address, however written', () => {
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(clientOf('192.0.2.1')).toBe('192.0.2.1');
    expect(clientOf('unknown')).toBe('unknown');
    // Cycling through one /64 buys no attempts; another /64 is another client.
    expect(throttleKey('t1', 'ip', '2001:db8:1:2::1')).toBe(throttleKey('t1', 'ip', '2001:db8:1:2:dead:beef:0:7'));
    expect(throttleKey('t1', 'ip', '2001:db8:1:2::1')).not.toBe(throttleKey('t1', 'ip', '2001:db8:1:3::1'));
    expect(throttleKey('t1', 'device', '::ffff:192.0.2.1')).toBe(throttleKey('t1', 'device', '192.0.2.1'));
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
