import { describe, expect, it } from 'vitest';
import { hasScope, parseScope } from './scopes';

describe('hasScope', () => {
  it.each([
    ['openid email', 'email', true],
    ['email', 'email', true],
    ['openid  email ', 'openid', true],
    ['openid emails', 'email', false],
    ['openid-email', 'email', false],
    ['', 'email', false],
  ])('%j has %j: %s', (scope, token, expected) => {
    expect(hasScope(scope, token)).toBe(expected);
    expect(parseScope(scope).includes(token)).toBe(expected);
  });
});
