/**
 * What services throw (CONVENTIONS.md "Errors"): a kind of failure and a stable code, never an
 * HTTP status or a wire format. Each API family maps a DomainError to its own status and body
 * (platform/http/errors.ts), so one service failure can answer `client_conflict` on the
 * management API and `directory_operation_rejected` on the directory API; the CLI prints the
 * message as one line.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Stable, machine-readable (`client_conflict`, `binding_code_expired`). */
    readonly code: string,
    /** For people: the CLI prints it; the problem family sends it; the api family logs it only. */
    message: string = code,
    /** Protocol headers the failure calls for (`WWW-Authenticate`, `Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
