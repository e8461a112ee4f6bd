import { DomainError } from '../../platform/errors';
import { describeViolations, type Violation } from '../../platform/http/schema';

/**
 * Error codes of the feature flags' administration (issue 26), in the engagement administration
 * API's `{error, error_description}` family; docs/decisions.md "Feature flags administration".
 */
export const FlagErrors = {
  /** A flag file, a schedule or a query that does not conform; the message names the field(s). */
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  violations: (list: readonly Violation[]) => new DomainError('invalid', 'invalid_request', describeViolations(list)),
  flagNotFound: (key: string) => new DomainError('not_found', 'flag_not_found', `flag ${key} not found`),
  flagExists: (key: string) => new DomainError('conflict', 'flag_exists', `flag ${key} already exists`),
  /** If-Match / expectedVersion named a version that is no longer the flag's current one (as Firebase Remote Config's ETag). */
  versionConflict: (key: string, expected: number, current: number) =>
    new DomainError('conflict', 'flag_version_conflict', `flag ${key} is at version ${current}, not ${expected}; read it again and retry`),
  versionNotFound: (key: string, version: number) => new DomainError('not_found', 'version_not_found', `flag ${key} has no version ${version}`),
  scheduleNotFound: (id: string) => new DomainError('not_found', 'schedule_not_found', `scheduled change ${id} not found`),
  /** Cancelling a change that was applied, cancelled or failed already. */
  scheduleNotPending: (id: string, status: string) => new DomainError('conflict', 'schedule_not_pending', `scheduled change ${id} is ${status}, not PENDING`),
  tooManySchedules: (key: string, max: number) => new DomainError('conflict', 'too_many_schedules', `flag ${key} has ${max} pending scheduled changes already`),
  keyImmutable: (key: string) => new DomainError('invalid', 'invalid_request', `key: is immutable (flag ${key})`),
};
