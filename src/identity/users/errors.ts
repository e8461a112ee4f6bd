import { DomainError } from '../../platform/errors';

export const UserErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  invalidPassword: (detail: string) => new DomainError('invalid', 'invalid_password', detail),
  unknown: (ref: string) => new DomainError('not_found', 'unknown_user', `no user ${ref} in this tenant`),
  conflict: (detail: string) => new DomainError('conflict', 'user_conflict', detail),
};
