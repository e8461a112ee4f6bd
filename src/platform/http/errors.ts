/**
 * The three error families of the API (CONVENTIONS.md "Errors"). Each family has its own error
 * class that knows its wire form, and maps the services' DomainErrors to it; `renderError` is
 * the one place errors become responses, called by each family's sub-app (family.ts).
 */
import type { Context } from 'hono';
import { safeErrorDescription } from './error-description';
import { DomainError, type ErrorKind } from '../errors';

export type ErrorFamily = 'problem' | 'oauth' | 'api';

export abstract class HttpError extends Error {
  abstract readonly family: ErrorFamily;
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  abstract body(): unknown;
}

/** Mobile edge and server messaging: `application/problem+json` `{code, message}` (spec 01). */
export class ProblemError extends HttpError {
  readonly family = 'problem';
  constructor(
    status: number,
    readonly code: string,
    message: string,
    headers?: Record<string, string>,
  ) {
    super(status, message, headers);
  }
  body() {
    return { code: this.code, message: this.message };
  }
}

/** OAuth protocol routes: RFC 6749 §5.2 `{error, error_description?}`. */
export class OAuthError extends HttpError {
  readonly family = 'oauth';
  /** Sanitized once here (RFC 6749 character set), whatever input it echoes. */
  readonly description: string | undefined;
  constructor(
    status: number,
    readonly error: string,
    description?: string,
    headers?: Record<string, string>,
  ) {
    super(status, description ?? error, headers);
    this.description = description === undefined ? undefined : safeErrorDescription(description);
  }
  body() {
    return this.description ? { error: this.error, error_description: this.description } : { error: this.error };
  }
}

/**
 * Native adapter, directory and management: `{error}` with the exact codes of spec 02/03. An
 * `invalid_request` also carries `error_description`, its detail: the fields and the rules they
 * break (issue 23; docs/decisions.md "Errors that say what is wrong"). Every other code keeps
 * the bare `{error}`: their details (which check refused a credential, a grant, an interaction)
 * are for the logs.
 */
export class ApiError extends HttpError {
  readonly family = 'api';
  /**
   * Sanitized once here, whatever input it echoes: printable ASCII, bounded (controls and
   * non-ASCII become `?`); `"` and `\` stay, as the body is JSON only (error-description.ts).
   */
  readonly description: string | undefined;
  constructor(
    status: number,
    readonly error: string,
    headers?: Record<string, string>,
    /** Detail: sent as error_description for invalid_request, for logs only otherwise. */
    detail?: string,
  ) {
    super(status, detail ?? error, headers);
    this.description = error === INVALID_REQUEST && detail !== undefined && detail !== error ? safeErrorDescription(detail, { max: MAX_API_DESCRIPTION, jsonOnly: true }) : undefined;
  }
  body() {
    return this.description ? { error: this.error, error_description: this.description } : { error: this.error };
  }
}

const INVALID_REQUEST = 'invalid_request';
/** Room for several violations (schema.ts describeViolations stays within 900 characters). */
const MAX_API_DESCRIPTION = 1000;

/** 404 with an empty body: an unknown or disabled issuer on protocol routes (spec 02). */
export class EmptyNotFound extends HttpError {
  readonly family = 'oauth';
  constructor() {
    super(404, 'unknown issuer');
  }
  body() {
    return null;
  }
}

/** `assertThat(cond, err)` keeps checks one line each (logto's idiom). */
export function assertThat(cond: unknown, err: Error | (() => Error)): asserts cond {
  if (!cond) throw typeof err === 'function' ? err() : err;
}

/**
 * The client closed the connection before its request body arrived. Nobody is left to answer,
 * and it is not a server fault: status 499 ("client closed request", nginx's convention), below
 * 500 so that it is neither logged as an error nor counted as a 5xx.
 */
export class ClientClosedError extends HttpError {
  readonly family = 'api';
  constructor() {
    super(499, 'client closed the connection before the request body was complete');
  }
  body() {
    return null;
  }
}

export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

/** How one sub-app of the api family names a DomainError on the wire (spec 03 per surface). */
export type ApiCodeOf = (e: DomainError) => string;

/** A DomainError in the family's own error class. */
export function fromDomain(family: ErrorFamily, e: DomainError, apiCode?: ApiCodeOf): HttpError {
  const status = STATUS_OF[e.kind];
  if (family === 'problem') return new ProblemError(status, e.code, e.message, e.headers);
  if (family === 'oauth') return new OAuthError(status, e.code, e.message === e.code ? undefined : e.message, e.headers);
  return new ApiError(status, apiCode ? apiCode(e) : e.code, e.headers, e.message);
}

function internal(family: ErrorFamily): HttpError {
  if (family === 'problem') return new ProblemError(500, 'internal_error', 'An internal error occurred.');
  if (family === 'oauth') return new OAuthError(500, 'server_error');
  return new ApiError(500, 'server_error');
}

export function notFoundError(family: ErrorFamily): HttpError {
  if (family === 'problem') return new ProblemError(404, 'not_found', 'No such route.');
  if (family === 'oauth') return new OAuthError(404, 'not_found');
  return new ApiError(404, 'not_found');
}

function respond(e: HttpError): Response {
  const h = new Headers(e.headers);
  const body = e.body();
  if (body === null) return new Response(null, { status: e.status, headers: h });
  h.set('Content-Type', e.family === 'problem' ? 'application/problem+json' : 'application/json');
  if (e.family === 'oauth') h.set('Cache-Control', 'no-store');
  return new Response(JSON.stringify(body), { status: e.status, headers: h });
}

/**
 * The one place errors become responses. An HttpError answers in its own form; a DomainError in
 * the family of the sub-app that caught it; anything else is a 500 with no detail, logged with
 * the request id.
 */
export function renderError(err: unknown, c: Context, family: ErrorFamily, apiCode?: ApiCodeOf): Response {
  const log = c.get('log') as { error(msg: string, f?: object): void } | undefined;
  let e: HttpError;
  if (err instanceof HttpError) e = err;
  else if (err instanceof DomainError) e = fromDomain(family, err, apiCode);
  else {
    log?.error('unexpected error', { err: err as Error });
    return respond(internal(family));
  }
  if (e.status >= 500) log?.error('request failed', { status: e.status, error: e.message });
  return respond(e);
}
