import { describe, expect, it } from 'vitest';
import { checker, describeViolations, parseDateTime, Strict, T } from './schema';

describe('parseDateTime (RFC 3339 §5.6, strict)', () => {
  it.each([
    '2026-01-01T00:00:00Z',
    '2026-01-01t00:00:00z',
    '2024-02-29T23:59:59.999Z',
    '2026-06-15T12:34:56.1+02:00',
    '2026-06-15T12:34:56.12-05:30',
    '2026-06-15T12:34:56.123456789+23:59',
    '0001-01-01T00:00:00Z',
    '0099-12-31T23:59:59-00:01',
    '1969-12-31T23:59:59.5Z',
    '9999-12-31T23:59:59Z',
  ])('%s is the instant Date.parse reads', (v) => {
    expect(parseDateTime(v)).toBe(Date.parse(v.length > 29 ? v.replace(/(\.\d{3})\d+/, '$1') : v));
  });

  it('accepts a leap second only at 23:59 UTC', () => {
    expect(parseDateTime('2016-12-31T23:59:60Z')).toBe(Date.parse('2016-12-31T23:59:59Z'));
    expect(parseDateTime('2017-01-01T00:59:60+01:00')).toBe(Date.parse('2016-12-31T23:59:59Z'));
    expect(parseDateTime('2016-12-31T22:59:60Z')).toBeNaN();
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T12:60:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+01:60',
    '2026-01-01T00:00:00',
    '2026-01-01',
    '2026-01-01 00:00:00Z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01T00:00:00.1234567890Z',
    '2026-01-01T00:00:00+0100',
    '2026-01-01T00:00:00Z ',
    '+02026-01-01T00:00:00Z',
    '2026-1-01T00:00:00Z',
    '２０２６-01-01T00:00:00Z',
    'yesterday',
  ])('%s is not a date-time', (v) => {
    expect(parseDateTime(v)).toBeNaN();
  });
});

describe('violations of a union told apart by a constant (an automation step)', () => {
  const Step = T.Union([
    Strict({ type: T.Literal('push'), template: T.String() }),
    Strict({ type: T.Literal('webhook'), url: T.String({ pattern: '^https?://' }), method: T.Optional(T.String()) }),
    Strict({ type: T.Literal('exit') }),
  ]);
  const File = Strict({ steps: T.Record(T.String(), Step), name: T.Optional(T.String({ maxLength: 3 })) });
  const check = checker(File);

  it('names only the faults of the branch the value chose', () => {
    const value = { steps: { hook: { type: 'webhook', url: 'ftp://x', method: 'POST' } } };
    expect(describeViolations(check.all(value))).toBe('steps.hook.url: must match ^https?://');
    expect(check(value)?.message).toBe('steps.hook.url: must match ^https?://');
  });

  it('names the allowed constants when the value chose none', () => {
    const value = { steps: { hook: { type: 'ftp', url: 'x' } }, name: 'long' };
    expect(describeViolations(check.all(value))).toBe('steps.hook.type: must be one of push, webhook, exit; name: must be at most 3 characters');
    expect(check(value)?.message).toBe('steps.hook.type: must be one of push, webhook, exit');
  });

  it('keeps every branch when no constant tells them apart', () => {
    const Loose = checker(T.Union([Strict({ a: T.String() }), Strict({ b: T.Number() })]));
    expect(describeViolations(Loose.all({ c: 1 }))).toContain('must match a schema in anyOf');
  });
});
