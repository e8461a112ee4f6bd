import { DomainError } from '../../platform/errors';

/** Codes of the subscription-list administration (docs/decisions.md "Subscription lists and push channels"). */
export const PreferenceErrors = {
  /** A list file that does not conform; the message names the field. */
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  listNotFound: (key: string) => new DomainError('not_found', 'list_not_found', `list ${key} not found`),
  listExists: (key: string) => new DomainError('conflict', 'list_exists', `list ${key} already exists`),
  /** If-Match named a revision the list is no longer at (as flags' flag_version_conflict). */
  versionConflict: (key: string, expected: number, current: number) =>
    new DomainError('conflict', 'list_version_conflict', `list ${key} is at revision ${current}, not ${expected}; read it again and retry`),
  keyImmutable: (key: string) => new DomainError('invalid', 'invalid_request', `key: is immutable (list ${key})`),
};
