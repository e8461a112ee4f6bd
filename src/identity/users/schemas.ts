import { Enum, Strict, T, checker } from '../../platform/http/schema';

/** What an email address of a user looks like (before normalisation: surrounding spaces allowed). */
export const EMAIL_PATTERN = '^\\s*[^\\s@]{1,64}@[^\\s@]{1,255}\\s*$';
export const Email = () => T.String({ pattern: EMAIL_PATTERN, description: 'an email address' });

/** Spec 03 user create body (the CLI may also set a first password). */
export const UserCreate = Strict({
  email: Email(),
  emailVerified: T.Optional(T.Boolean()),
  password: T.Optional(T.String()),
});
export const checkUserCreate = checker(UserCreate);

/**
 * Spec 03 user update body: email, emailVerified and status, replaced. emailVerified may be left
 * out (issue 21): it then stays as it is, or becomes false when the email changes, since nobody
 * has proved control of the new address (docs/decisions.md).
 */
export const UserUpdate = Strict({
  email: Email(),
  emailVerified: T.Optional(T.Boolean({ description: 'left out: unchanged, or false when the email changes' })),
  status: Enum(['ACTIVE', 'DISABLED'] as const),
});
export const checkUserUpdate = checker(UserUpdate);

/** Spec 03 User. */
export const User = T.Object({
  id: T.String({ format: 'uuid' }),
  subject: T.String(),
  email: T.String(),
  emailVerified: T.Boolean(),
  status: Enum(['ACTIVE', 'DISABLED'] as const),
  createdAt: T.String({ format: 'date-time' }),
});
