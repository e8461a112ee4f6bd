import { ApiError } from '../../platform/http/errors';
import { DomainError, type ErrorKind } from '../../platform/errors';

/**
 * The native adapter's error table (spec 02 "Native adapter, body {error: <code>}"): every code
 * with its status. Services throw DomainErrors with these codes; `toNativeError` renders any
 * DomainError whose code is in the table with the table's status, whatever kind its thrower
 * chose (the social sign-in of another context throws its own), and the api family renders the rest.
 */
export const NATIVE_STATUS = {
  invalid_request: 400,
  invalid_interaction: 400,
  invalid_client: 400,
  invalid_scope: 400,
  invalid_target: 400,
  invalid_password: 400,
  invalid_new_password: 400,
  invalid_credentials: 401,
  invalid_code: 401,
  invalid_grant: 401,
  browser_request_forbidden: 403,
  native_authentication_disabled: 403,
  provider_unavailable: 403,
  registration_closed: 403,
  unknown_tenant: 404,
  browser_required: 409,
  account_link_required: 409,
  email_verification_required: 409,
  registration_conflict: 409,
  too_many_attempts: 429,
  temporarily_unavailable: 503,
} as const;

export type NativeErrorCode = keyof typeof NATIVE_STATUS;

const KIND: Record<number, ErrorKind> = { 400: 'invalid', 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 429: 'rate_limited', 503: 'unavailable' };

/** A service failure with a code of the table; `detail` goes to the logs only. */
export function nativeFailure(code: NativeErrorCode, detail: string = code, headers?: Record<string, string>): DomainError {
  return new DomainError(KIND[NATIVE_STATUS[code]], code, detail, headers);
}

/** 429 too_many_attempts with Retry-After in seconds (RFC 9110 §10.2.3). */
export function tooManyAttempts(seconds: number): DomainError {
  return nativeFailure('too_many_attempts', `wait ${seconds} s`, { 'Retry-After': String(Math.max(1, Math.ceil(seconds))) });
}

/** A failure as the native family answers it: the table's status for the table's codes. */
export function toNativeError(e: unknown): unknown {
  if (e instanceof DomainError && Object.hasOwn(NATIVE_STATUS, e.code)) {
    return new ApiError(NATIVE_STATUS[e.code as NativeErrorCode], e.code, e.headers, e.message);
  }
  return e;
}

export const invalidRequest = (detail: string) => new ApiError(400, 'invalid_request', undefined, detail);
