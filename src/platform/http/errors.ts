/**
 * The three error families of the API (CONVENTIONS.md "Errors"). Each error knows its
 * wire form; `renderError` in http.ts is the one place that turns errors into responses.
 */

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
  constructor(
    status: number,
    readonly error: string,
    readonly description?: string,
    headers?: Record<string, string>,
  ) {
    super(status, description ?? error, headers);
  }
  body() {
    return this.description ? { error: this.error, error_description: this.description } : { error: this.error };
  }
}

/** Native adapter, directory and management: `{error}` with the exact codes of spec 02/03. */
export class ApiError extends HttpError {
  readonly family = 'api';
  constructor(
    status: number,
    readonly error: string,
    headers?: Record<string, string>,
    /** Internal detail for logs only; never sent. */
    detail?: string,
  ) {
    super(status, detail ?? error, headers);
  }
  body() {
    return { error: this.error };
  }
}

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
export function assertThat(cond: unknown, err: HttpError | (() => HttpError)): asserts cond {
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
