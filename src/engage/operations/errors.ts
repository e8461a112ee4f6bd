/**
 * errorCode values of REJECTED operations that depend on state rather than shape. Shape
 * violations use the codes of shared/check.ts `ViolationCode`. All are permanent.
 */
export const OperationErrorCode = {
  generationNotReached: 'GENERATION_NOT_REACHED',
  privacyOptedOut: 'PRIVACY_OPTED_OUT',
} as const;
