import { DomainError } from '../../platform/errors';

/** Problem codes of GET /v1/sdk/sync/events (docs/decisions.md "Change notices"). */
export const SyncStreamErrors = {
  /**
   * The process holds as many streams as it may (`syncStreamsMax`): 503 with Retry-After, as
   * RFC 9110 §15.6.4 has it for a temporary overload; the SDK falls back to its periodic sync.
   */
  full: (retryAfterSeconds: number) =>
    new DomainError('unavailable', 'temporarily_unavailable', 'this server holds as many change-notice streams as it may; retry later', {
      'Retry-After': String(retryAfterSeconds),
    }),
};
