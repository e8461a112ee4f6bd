import { ApiError } from '../../platform/http/errors';

/** Management errors of spec 03 for clients (the CLI prints them; the management API renders them). */
export const ClientErrors = {
  invalid: (detail: string) => new ApiError(400, 'invalid_request', undefined, detail),
  unknown: (clientId: string) => new ApiError(404, 'unknown_client', undefined, `no client ${clientId} in this tenant`),
  conflict: (detail: string) => new ApiError(409, 'client_conflict', undefined, detail),
  unknownResource: (uri: string) => new ApiError(409, 'unknown_client_resource', undefined, `resource ${uri} is not registered for the tenant`),
};
