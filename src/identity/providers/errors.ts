import { DomainError } from '../../platform/errors';

/** Spec 02's native error codes for a social sign-in, and the CLI's own. */
export const ProviderErrors = {
  unavailable: () => new DomainError('forbidden', 'provider_unavailable', 'social provider not configured for the tenant'),
  invalidCredentials: () => new DomainError('unauthenticated', 'invalid_credentials', 'upstream identity proof rejected'),
  linkRequired: () => new DomainError('conflict', 'account_link_required', 'an account with this email exists; link the identity in the browser first'),
  emailVerificationRequired: () => new DomainError('conflict', 'email_verification_required', 'the upstream email must be verified first'),
  registrationClosed: () => new DomainError('forbidden', 'registration_closed', 'self-service registration disabled for the tenant'),
  /** The provider's discovery document or keys could not be fetched (spec 02: 503 temporarily_unavailable). */
  upstreamDown: () => new DomainError('unavailable', 'temporarily_unavailable', 'the identity provider could not be reached'),
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  conflict: (name: string) => new DomainError('conflict', 'provider_conflict', `a provider named ${name} exists in this tenant`),
  unknown: (name: string) => new DomainError('not_found', 'unknown_provider', `no provider named ${name} in this tenant`),
};
