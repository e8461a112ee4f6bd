import { DomainError } from '../../platform/errors';
import { describeViolations, type Violation } from '../../platform/http/schema';

/**
 * Error codes of in-app messages' administration (issue 27), in the engagement administration
 * API's `{error, error_description}` family; docs/decisions.md "In-app messages".
 */
export const InAppErrors = {
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  violations: (list: readonly Violation[]) => new DomainError('invalid', 'invalid_request', describeViolations(list)),
  notFound: (key: string) => new DomainError('not_found', 'message_not_found', `in-app message ${key} not found`),
  exists: (key: string) => new DomainError('conflict', 'message_exists', `in-app message ${key} already exists`),
  /** If-Match named a version that is no longer the message's latest. */
  versionConflict: (key: string, expected: number, current: number) =>
    new DomainError('conflict', 'message_version_conflict', `in-app message ${key} is at version ${current}, not ${expected}; read it again and retry`),
  /** A transition the message's status does not allow (publishing or editing an archived message, pausing one that is not ACTIVE). */
  wrongStatus: (key: string, status: string, action: string) => new DomainError('conflict', 'message_status_conflict', `in-app message ${key} is ${status}: it cannot be ${action}`),
  keyImmutable: (key: string) => new DomainError('invalid', 'invalid_request', `key: is immutable (in-app message ${key})`),
};
