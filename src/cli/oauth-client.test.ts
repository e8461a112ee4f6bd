import { describe, expect, it } from 'vitest';
import { identityOf } from './oauth-client';

const jwt = (payload: unknown) => `e30.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;

/** Issue 23 point 10: `engage login` names the operator by email, read from the ID token it received. */
describe('identityOf (the operator engage login names)', () => {
  it('reads sub and email from the ID token', () => {
    expect(identityOf(jwt({ sub: 'u-1', email: 'ada@example.com', email_verified: true }))).toEqual({ subject: 'u-1', email: 'ada@example.com' });
  });
  it('without an email claim, or without an ID token, or from a malformed one: null', () => {
    expect(identityOf(jwt({ sub: 'u-1' }))).toEqual({ subject: 'u-1', email: null });
    expect(identityOf(undefined)).toEqual({ subject: null, email: null });
    expect(identityOf('not-a-jwt')).toEqual({ subject: null, email: null });
    expect(identityOf(jwt({ sub: 7, email: ['x'] }))).toEqual({ subject: null, email: null });
  });
});
