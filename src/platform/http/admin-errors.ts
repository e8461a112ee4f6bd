import { DomainError } from '../errors';
import { ApiError } from './errors';
import type { BodyFailure } from './body';

/**
 * The failures both administration APIs share (spec 03's management API, the engagement
 * administration API of issue 24): the same codes for the same situations, in the api family.
 */
export const AdministrationErrors = {
  /** Configuration turned the administration APIs off (spec 03). */
  disabled: () => new ApiError(404, 'administration_disabled'),
  /**
   * Another tenant's issuer: the administration APIs exist only under the control issuer, so any
   * other issuer answers as for a route it does not have (docs/decisions.md "Management API").
   */
  notControl: () => new ApiError(404, 'not_found'),
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  /** An unreadable or oversized body: spec 03 has one code for a bad JSON body. */
  body: (f: BodyFailure) => new DomainError('invalid', 'invalid_request', f.kind === 'too_large' ? `the body is larger than ${f.limit} bytes` : `${f.field}: ${f.reason}`),
  insufficientScope: (scope: string) =>
    new DomainError('forbidden', 'insufficient_scope', `scope ${scope} is required`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` }),
  accessDenied: (key: string) => new DomainError('forbidden', 'access_denied', `permission ${key} is required`),
};

/**
 * A route's documented failures: those every route of its administration API shares (its gate
 * and guard answer them), then its own; a status in both is one line, the shared words first.
 */
export function withSharedErrors(shared: Record<number, string>, own: Record<number, string> = {}, join = ', '): Record<number, string> {
  const all = { ...shared };
  for (const [status, text] of Object.entries(own)) all[Number(status)] = shared[Number(status)] ? `${shared[Number(status)]}${join}${text}` : text;
  return all;
}
