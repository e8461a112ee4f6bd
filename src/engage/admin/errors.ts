import { DomainError } from '../../platform/errors';
import { ApiError } from '../../platform/http/errors';
import type { BodyFailure } from '../../platform/http/body';

/**
 * The engagement administration API's own failures (issue 24), in spec 03's `{error}` form as
 * the management API answers them: the same codes for the same situations.
 */
export const EngageAdminErrors = {
  /** Configuration turned the administration APIs off (spec 03's administration_disabled). */
  disabled: () => new ApiError(404, 'administration_disabled'),
  /** Another tenant's issuer: the API exists only under the control issuer. */
  notControl: () => new ApiError(404, 'not_found'),
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  body: (f: BodyFailure) => new DomainError('invalid', 'invalid_request', f.kind === 'too_large' ? `the body is larger than ${f.limit} bytes` : `${f.field}: ${f.reason}`),
  insufficientScope: (scope: string) =>
    new DomainError('forbidden', 'insufficient_scope', `scope ${scope} is required`, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` }),
  accessDenied: (key: string) => new DomainError('forbidden', 'access_denied', `permission ${key} is required`),
};
