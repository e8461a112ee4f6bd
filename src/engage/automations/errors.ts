import { DomainError } from '../../platform/errors';
import { describeViolations, type Violation } from '../../platform/http/schema';

/**
 * Error codes of automations (issue 28): the administration API's `{error, error_description}`
 * family, and the trigger endpoint's Problem codes (spec 01 leaves them open; docs/decisions.md
 * "Automations: the trigger endpoint").
 */
export const AutomationErrors = {
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  violations: (list: readonly Violation[]) => new DomainError('invalid', 'invalid_request', describeViolations(list)),
  notFound: (key: string) => new DomainError('not_found', 'automation_not_found', `automation ${key} not found`),
  exists: (key: string) => new DomainError('conflict', 'automation_exists', `automation ${key} already exists`),
  versionConflict: (key: string, expected: number, current: number) =>
    new DomainError('conflict', 'automation_version_conflict', `automation ${key} is at version ${current}, not ${expected}; read it again and retry`),
  wrongStatus: (key: string, status: string, action: string) => new DomainError('conflict', 'automation_status_conflict', `automation ${key} is ${status}: it cannot be ${action}`),
  keyImmutable: (key: string) => new DomainError('invalid', 'invalid_request', `key: is immutable (automation ${key})`),
  runNotFound: (id: string) => new DomainError('not_found', 'run_not_found', `run ${id} not found`),
  runEnded: (id: string, status: string) => new DomainError('conflict', 'run_ended', `run ${id} is ${status} already`),
  // The trigger endpoint (Problem codes).
  /** No automation of the environment has an API entry under this key (or the key was rotated away). */
  triggerNotFound: () => new DomainError('not_found', 'automation_not_found', 'No automation of this environment has an API entry with this key.'),
  inactive: (status: string) => new DomainError('conflict', 'automation_not_active', `The automation is ${status}: it takes no new runs.`),
  appScope: () => new DomainError('forbidden', 'automation_app_not_allowed', 'The access key is not allowed for any of the automation’s target apps.'),
  profileNotFound: () => new DomainError('not_found', 'profile_not_found', 'profileId names no profile of this environment.'),
  notInAudience: () => new DomainError('conflict', 'profile_not_in_audience', 'The profile is not in the automation’s audience.'),
  reentryRefused: (why: string) => new DomainError('conflict', 'reentry_refused', `The automation’s re-entry policy refuses a new run for this profile: ${why}.`),
  contextTooLarge: (why: string) => new DomainError('too_large', 'context_too_large', `context: ${why}`),
  idempotencyReused: () => new DomainError('conflict', 'idempotency_key_reused', 'The Idempotency-Key was already used with a different request.'),
};
