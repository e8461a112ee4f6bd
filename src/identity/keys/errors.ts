import { DomainError } from '../../platform/errors';

/** spec 03: "the key, credential or federation transition is invalid in the current state". */
export const keyTransitionInvalid = (detail: string) => new DomainError('conflict', 'operation_conflict', detail);
