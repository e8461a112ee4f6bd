import { DomainError } from '../../platform/errors';

/** Management errors of spec 03 for clients (the CLI prints them; the management API renders them). */
export const ClientErrors = {
  invalid: (detail: string) => new DomainError('invalid', 'invalid_request', detail),
  unknown: (clientId: string) => new DomainError('not_found', 'unknown_client', `no client ${clientId} in this tenant`),
  conflict: (detail: string) => new DomainError('conflict', 'client_conflict', detail),
  configurationManaged: (clientId: string) => new DomainError('conflict', 'configuration_managed', `bootstrap configuration owns client ${clientId}`),
  unknownResource: (uri: string) => new DomainError('conflict', 'unknown_client_resource', `resource ${uri} is not registered for the tenant`),
};
