import { DomainError } from '../../platform/errors';

/** Spec 03 management errors of the federation routes, and the broker's refusals. */
export const FederationErrors = {
  /** Spec 03: "the key, credential or federation transition is invalid in the current state". */
  conflict: (why: string) => new DomainError('conflict', 'operation_conflict', why),
  unknownTenant: (ref: string) => new DomainError('not_found', 'unknown_tenant', `no tenant ${ref}`),
  invalid: (why: string) => new DomainError('invalid', 'invalid_request', why),
};

/** The sign-in pages' answers when a brokered sign-in cannot go on (sessions/errors.ts PageError). */
export const FederationPages = {
  unavailable: { status: 400, title: 'This sign-in option is not available', message: 'Return to the application and sign in another way.' },
  expired: { status: 400, title: 'This sign-in request has expired', message: 'It took too long or was already completed. Return to the application and start signing in again.' },
  refused: (source?: string) => ({
    status: 400,
    title: 'Sign-in was not completed',
    message: `Signing in${source ? ` with ${source}` : ''} did not succeed. Return to the application and try again.`,
  }),
  noAccount: (source?: string) => ({
    status: 403,
    title: 'No account available',
    message: `Your account${source ? ` at ${source}` : ''} has no verified email address, or its account here is disabled.`,
  }),
};
