import { DomainError } from '../../platform/errors';
import type { Violation } from '../../platform/http/schema';

/**
 * Problem codes shared by every mobile edge route (spec 01 leaves their values open;
 * docs/decisions.md "Mobile edge (spec 01)" lists them).
 */
export const EdgeErrors = {
  /** Malformed body, header or path parameter; the message names the field. */
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  fromViolation: (v: Violation) => new DomainError('invalid', 'invalid_request', v.message),
  /** Invalid, expired, revoked or incorrectly scoped credential (spec 01 "Authentication"). */
  unauthorized: (message = 'The credential is missing, invalid, revoked or not valid for this route.') =>
    new DomainError('unauthenticated', 'unauthorized', message, { 'WWW-Authenticate': 'Bearer' }),
  notFound: (what: string) => new DomainError('not_found', 'not_found', `${what} not found`),
  conflict: (message: string) => new DomainError('conflict', 'conflict', message),
  /**
   * RFC 9110 §15.5.14. Not a 400: the SDK must not read it as "never retry this batch"; an
   * operator can raise `maxRequestBytes`. The connection then closes, in stages (platform/http/linger.ts).
   */
  payloadTooLarge: (limit: number) =>
    new DomainError('too_large', 'payload_too_large', `body: must be at most ${limit} bytes (maxRequestBytes)`, { Connection: 'close' }),
};

/**
 * An object `engage apply` declares (issue 24): the administration API and the CLI refuse to edit
 * it (409 configuration_managed, spec 03's code); services take `{ allowManaged: true }` for apply.
 */
export const configurationManaged = (what: string) =>
  new DomainError('conflict', 'configuration_managed', `${what} is managed by engage apply; change the configuration file instead`);
