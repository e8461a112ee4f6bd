import { DomainError } from '../../platform/errors';

/** 409 Problems of POST /v1/installation-binding-transitions (spec 01 "Errors"). */
export const BindingErrors = {
  codeExpired: () => new DomainError('conflict', 'binding_code_expired', 'The binding code has expired.'),
  codeConsumed: () => new DomainError('conflict', 'binding_code_consumed', 'The binding code has already been used.'),
  /** Unknown here, or issued in another environment: indistinguishable on purpose. */
  codeUnknown: () => new DomainError('conflict', 'binding_code_invalid', 'The binding code is not valid.'),
  idempotencyReused: () =>
    new DomainError('conflict', 'idempotency_key_reused', 'The Idempotency-Key was already used with a different request.'),
};
