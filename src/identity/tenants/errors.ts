import { ApiError } from '../../platform/http/errors';

export const TenantErrors = {
  invalid: (detail: string) => new ApiError(400, 'invalid_request', undefined, detail),
  unknown: (ref: string) => new ApiError(404, 'unknown_tenant', undefined, `no tenant ${ref}`),
  conflict: (detail: string) => new ApiError(409, 'tenant_conflict', undefined, detail),
  issuerLocked: (detail: string) => new ApiError(409, 'tenant_issuer_locked', undefined, detail),
  slugLocked: (detail: string) => new ApiError(409, 'tenant_slug_locked', undefined, detail),
  configurationManaged: () => new ApiError(409, 'configuration_managed', undefined, 'bootstrap configuration owns this tenant'),
};
