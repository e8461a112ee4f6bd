import { ApiError } from '../../platform/http/errors';

export const UserErrors = {
  invalid: (detail: string) => new ApiError(400, 'invalid_request', undefined, detail),
  invalidPassword: (detail: string) => new ApiError(400, 'invalid_password', undefined, detail),
  unknown: (ref: string) => new ApiError(404, 'unknown_user', undefined, `no user ${ref} in this tenant`),
  conflict: (detail: string) => new ApiError(409, 'user_conflict', undefined, detail),
};
