import { DomainError } from '../../platform/errors';

/** Spec 03 errors of the user-imports and user-exports routes. */
export const TransferErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  unknown: (id: string) => new DomainError('not_found', 'unknown_user_transfer', `no user transfer ${id} in this tenant`),
  conflict: () => new DomainError('conflict', 'user_transfer_conflict', 'the idempotency key was used with a different transfer request'),
};

/**
 * Machine-readable reasons an import record failed (results' and reports' errorCode; the
 * contract names the kinds, docs/decisions.md lists these values).
 */
export const RecordError = {
  malformed: 'malformed_record',
  schemaVersion: 'unsupported_schema_version',
  duplicateEmail: 'duplicate_email',
  duplicateExternalId: 'duplicate_external_id',
  unknownHashFormat: 'unknown_hash_format',
  /** A cost parameter beyond the bounds of hashes/bounds.ts (issue 21). */
  hashCostOutOfBounds: 'hash_cost_out_of_bounds',
  /** A string or property name holds NUL (\u0000), which no text column takes (issue 21 point 11). */
  nulCharacter: 'nul_character',
  unknownProvider: 'unknown_identity_provider',
  duplicateIdentity: 'duplicate_identity',
} as const;
export type RecordErrorCode = (typeof RecordError)[keyof typeof RecordError];
