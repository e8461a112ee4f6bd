import { DomainError } from '../../platform/errors';

/** Codes of the push channel and category administration (docs/decisions.md "Subscription lists and push channels"). */
export const PushChannelErrors = {
  /** A channel file that does not conform, or whose kind is not the app's platform's; the message names the field. */
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  channelNotFound: (key: string) => new DomainError('not_found', 'push_channel_not_found', `push channel ${key} not found`),
  channelExists: (key: string) => new DomainError('conflict', 'push_channel_exists', `push channel ${key} already exists`),
  /** If-Match named a revision the channel is no longer at (as flags' flag_version_conflict). */
  versionConflict: (key: string, expected: number, current: number) =>
    new DomainError('conflict', 'push_channel_version_conflict', `push channel ${key} is at revision ${current}, not ${expected}; read it again and retry`),
  keyImmutable: (key: string) => new DomainError('invalid', 'invalid_request', `key: is immutable (push channel ${key})`),
};
