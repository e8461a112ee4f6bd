import { ApiError } from '../../platform/http/errors';

/** spec 03: "the key, credential or federation transition is invalid in the current state". */
export const keyTransitionInvalid = (detail: string) => new ApiError(409, 'operation_conflict', undefined, detail);
