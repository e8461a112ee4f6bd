import { DomainError } from '../../platform/errors';

/**
 * Error codes of the outbound webhooks' administration (issue 28), in the engagement
 * administration API's `{error, error_description}` family. No message ever holds a secret.
 */
export const WebhookErrors = {
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  /** Two rotations of one environment at once: one wins, the other is told to read and retry. */
  rotationConflict: (environment: string) =>
    new DomainError('conflict', 'operation_conflict', `the webhook signing secret of environment ${environment} was rotated by another request at the same time; read it and rotate again`),
};
