import { describe, expect, it } from 'vitest';
import { safeErrorDescription } from './error-description';

describe('safeErrorDescription (RFC 6749 %x20-21 / %x23-5B / %x5D-7E)', () => {
  it('keeps printable ASCII other than quote and backslash', () => {
    const allowed = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).filter((c) => c !== '"' && c !== '\\').join('');
    expect(safeErrorDescription(allowed.slice(0, 150))).toBe(allowed.slice(0, 150));
  });

  it.each([
    ['quote', 'a"b', "a'b"],
    ['backslash', 'a\\b', 'a/b'],
    ['controls and DEL', 'a\n\t\r\u0000\u007fb', 'a?????b'],
    ['non-ASCII, one per code point', 'café 😀', 'caf? ?'],
    ['lone surrogate', 'a\ud800b', 'a?b'],
  ])('%s', (_name, input, output) => {
    expect(safeErrorDescription(input)).toBe(output);
    expect(safeErrorDescription(input)).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/);
  });

  it('bounds what is echoed', () => {
    expect(safeErrorDescription('x'.repeat(1000))).toBe('x'.repeat(200) + '...');
  });

  it('jsonOnly (the api family): keeps quote and backslash, still replaces controls and non-ASCII; max bounds it', () => {
    expect(safeErrorDescription('subject: must match ^[\\x21-\\x7e]+$ "é"\n', { jsonOnly: true })).toBe('subject: must match ^[\\x21-\\x7e]+$ "?"?');
    expect(safeErrorDescription('x'.repeat(2000), { max: 1000, jsonOnly: true })).toBe('x'.repeat(1000) + '...');
  });
});
