import { DomainError } from '../../platform/errors';
import { ViolationCode } from '../../platform/http/schema';

/**
 * errorCode values of REJECTED operations beyond the shape codes of `ViolationCode`
 * (platform/http/schema.ts). All are permanent.
 */
export const OperationErrorCode = {
  generationNotReached: 'GENERATION_NOT_REACHED',
  privacyOptedOut: 'PRIVACY_OPTED_OUT',
  /** A free-form value (event property, attribute value) nests deeper than MAX_FREE_FORM_DEPTH. */
  nestingTooDeep: ViolationCode.depth,
  /** The payload's JSON is larger than MAX_PAYLOAD_BYTES. */
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** The operation would make its installation or profile hold more than MAX_LIVE_KEYS attributes (or tags) of a kind (key-budget.ts). */
  keyLimitExceeded: 'KEY_LIMIT_EXCEEDED',
} as const;

/** Problems of POST /v1/sdk/operations:batch. */
export const OperationErrors = {
  /** A batchId already answered, sent again with other operations: nothing of it is stored. */
  batchConflict: () =>
    new DomainError('conflict', 'batch_conflict', 'batchId: was already used with different operations; send new operations under a new batchId.'),
};
