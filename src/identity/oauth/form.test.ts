import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../platform/http/errors';
import { parseForm } from './form';

const asObject = (text: string) => Object.fromEntries(parseForm(text).names().map((n) => [n, parseForm(text).get(n)]));
/** What URLSearchParams makes of a body, with empty values dropped as parseForm does. */
const reference = (text: string) => Object.fromEntries([...new URLSearchParams(text)].filter(([, v]) => v !== ''));

describe('parseForm', () => {
  it.each([
    'token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln',
    'grant_type=refresh_token&refresh_token=abc_DEF-123&scope=openid%20email',
    'a=1&&b=2&',
    '&a=x=y',
    'flag&b=',
    'a=%41%zz&b=1+2',
    'redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb%3Fx%3D1',
    'caf%C3%A9=cr%C3%A8me',
    '',
  ])('decodes %j exactly as URLSearchParams does', (text) => {
    expect(asObject(text)).toEqual(reference(text));
  });

  it('rejects a repeated parameter, even when one spelling is encoded', () => {
    for (const text of ['a=1&a=2', 'a=1&%61=2']) {
      expect(() => parseForm(text)).toThrow(OAuthError);
    }
  });

  it('treats a parameter without a value as omitted', () => {
    const f = parseForm('a=&b=1');
    expect(f.get('a')).toBeNull();
    expect(() => f.required('a')).toThrow('a is required');
    expect(f.required('b')).toBe('1');
  });
});
