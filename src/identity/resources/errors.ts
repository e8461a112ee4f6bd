import { DomainError } from '../../platform/errors';

export const ResourceErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  conflict: (detail: string) => new DomainError('conflict', 'resource_conflict', detail),
};

export const CredentialErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  /** Spec 03 names no "unknown credential" code: an unknown id is an invalid transition. */
  transition: (detail: string) => new DomainError('conflict', 'operation_conflict', detail),
};
