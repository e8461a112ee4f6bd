import { DomainError } from '../../platform/errors';

export const TenantErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  unknown: (ref: string) => new DomainError('not_found', 'unknown_tenant', `no tenant ${ref}`),
  conflict: (detail: string) => new DomainError('conflict', 'tenant_conflict', detail),
  issuerLocked: (detail: string) => new DomainError('conflict', 'tenant_issuer_locked', detail),
  slugLocked: (detail: string) => new DomainError('conflict', 'tenant_slug_locked', detail),
  configurationManaged: () => new DomainError('conflict', 'configuration_managed', 'bootstrap configuration owns this tenant'),
};
