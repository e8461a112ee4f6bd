import { DomainError } from '../../platform/errors';

export const ResourceErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  conflict: (detail: string) => new DomainError('conflict', 'resource_conflict', detail),
  /** Spec 03 names no "unknown resource" code (no route addresses one); the CLI prints it. */
  unknown: (uri: string) => new DomainError('not_found', 'unknown_resource', `no resource ${uri} in this tenant`),
};

export const CredentialErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  /** Spec 03 names no "unknown credential" code: an unknown id is an invalid transition. */
  transition: (detail: string) => new DomainError('conflict', 'operation_conflict', detail),
};
