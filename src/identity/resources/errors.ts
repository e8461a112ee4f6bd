import { ApiError } from '../../platform/http/errors';

export const ResourceErrors = {
  invalid: (detail: string) => new ApiError(400, 'invalid_request', undefined, detail),
  conflict: (detail: string) => new ApiError(409, 'resource_conflict', undefined, detail),
};

export const CredentialErrors = {
  invalid: (detail: string) => new ApiError(400, 'invalid_request', undefined, detail),
  /** Spec 03 names no "unknown credential" code: an unknown id is an invalid transition. */
  transition: (detail: string) => new ApiError(409, 'operation_conflict', undefined, detail),
};
