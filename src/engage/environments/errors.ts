import { DomainError } from '../../platform/errors';

export const EnvironmentErrors = {
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  unknownEnvironment: (ref: string) => new DomainError('not_found', 'unknown_environment', `no environment ${ref}`),
  unknownApp: (ref: string) => new DomainError('not_found', 'unknown_app', `no app ${ref} in this environment`),
  /** The environment is being deleted: it answers reads and refuses every change (issue 24 point 1). */
  environmentDeleting: (ref: string) => new DomainError('conflict', 'environment_deleting', `environment ${ref} is being deleted`),
  /** A DISABLED environment sends nothing, tests included (its edge credentials are refused likewise). */
  environmentDisabled: (ref: string) => new DomainError('conflict', 'environment_disabled', `environment ${ref} is disabled: enable it to send`),
  unknownTenant: (id: string) => new DomainError('invalid', 'invalid_request', `identityTenantId: no identity tenant ${id}`),
  unknownAccessKey: (ref: string) => new DomainError('not_found', 'unknown_access_key', `no access key ${ref}`),
  nameTaken: (what: string, name: string) => new DomainError('conflict', 'name_taken', `${what} name ${name} is taken`),
  accessKeyRevoked: (id: string) => new DomainError('conflict', 'access_key_revoked', `access key ${id} is revoked`),
  appInUse: (name: string) =>
    new DomainError('conflict', 'app_in_use', `app ${name} has installations or provider credentials: disable it instead, or delete its credentials first`),
  accessKeyExpired: (id: string) => new DomainError('conflict', 'access_key_expired', `access key ${id} has expired`),
  rotationConflict: (id: string) => new DomainError('conflict', 'operation_conflict', `access key ${id} was rotated by another request at the same time; read it and rotate again`),
};
