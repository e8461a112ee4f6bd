import { Strict, T, checker } from '../../platform/http/schema';

export const Email = () => T.String({ pattern: '^\\s*[^\\s@]{1,64}@[^\\s@]{1,255}\\s*$', description: 'an email address' });

/** Spec 03 user create body (the CLI may also set a first password). */
export const UserCreate = Strict({
  email: Email(),
  emailVerified: T.Optional(T.Boolean()),
  password: T.Optional(T.String()),
});
export const checkUserCreate = checker(UserCreate);
