import { DomainError } from '../../platform/errors';
import { ApiError } from '../../platform/http/errors';
import type { BodyFailure } from '../../platform/http/body';

/** Management API failures of spec 03 that no identity service raises. */
export const AdminErrors = {
  /** Configuration turned the management API off (spec 03). */
  disabled: () => new ApiError(404, 'administration_disabled'),
  /**
   * Another tenant's issuer: the management API exists only under the control issuer, so any
   * other issuer answers as for a route it does not have (docs/decisions.md "Management API").
   */
  notControl: () => new ApiError(404, 'not_found'),
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  /** An unreadable or oversized body: spec 03 has one code for a bad JSON body. */
  body: (f: BodyFailure) => new DomainError('invalid', 'invalid_request', f.kind === 'too_large' ? `the body is larger than ${f.limit} bytes` : `${f.field}: ${f.reason}`),
  insufficientScope: (scope: string) =>
    new DomainError('forbidden', 'insufficient_scope', `scope ${scope} is required`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` }),
  accessDenied: (key: string) => new DomainError('forbidden', 'access_denied', `permission ${key} is required`),
  /**
   * The user of the control tenant holds a permission the operator does not (issue 21): spec
   * 03's access_denied, "operator lacks the matching live directory permission".
   */
  outranked: (key: string) => new DomainError('forbidden', 'access_denied', `the user holds permission ${key}, which you do not`),
};
