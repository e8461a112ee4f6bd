import { DomainError } from '../../platform/errors';

/**
 * Spec 03 directory errors. Every duplicate or missing dependency is one code,
 * `directory_operation_rejected` (409); the message names the cause for logs and the CLI.
 */
export const DirectoryErrors = {
  rejected: (why: string) => new DomainError('conflict', 'directory_operation_rejected', why),
  invalid: (why: string) => new DomainError('invalid', 'invalid_request', why),
};
