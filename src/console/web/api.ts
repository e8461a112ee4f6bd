import { accessToken, signInInteractively } from './auth';
import { config, type ApiName } from './config';
import type { Endpoint } from './endpoints';
import { describeError } from './errors';

type ParamsOf<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? K | ParamsOf<Rest> : never;
type PathOf<E extends Endpoint> = E extends `${string} ${infer P}` ? P : never;

export interface CallOptions<E extends Endpoint> {
  params?: Record<ParamsOf<PathOf<E>>, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Request headers of the operation (If-Match of a versioned edit). */
  headers?: Record<string, string>;
  /** Raw text of the answer (downloads). */
  text?: boolean;
  signal?: AbortSignal;
}

/** A refusal or failure of an administration API, with words a person understands. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string | undefined,
  ) {
    super(describeError(status, code, detail));
  }
}

const apiOf = (path: string): ApiName => (path.startsWith('/engage/') ? 'engage' : 'identity');

/** The URL of an operation with its path parameters filled in (each percent-encoded). */
export function urlOf<E extends Endpoint>(endpoint: E, opts: CallOptions<E> = {}): string {
  const path = endpoint.slice(endpoint.indexOf(' ') + 1);
  const params = (opts.params ?? {}) as Record<string, string>;
  const filled = path.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (params[k] === undefined) throw new Error(`${endpoint}: missing ${k}`);
    return encodeURIComponent(params[k]);
  });
  const url = new URL(`${config.issuer}${filled}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url.href;
}

/**
 * Calls one documented operation with the operator's token for its API. An expired token is
 * refreshed once and the call repeated; a refusal is an ApiFailure.
 */
export async function call<T = unknown, E extends Endpoint = Endpoint>(endpoint: E, opts: CallOptions<E> = {}): Promise<T> {
  const method = endpoint.slice(0, endpoint.indexOf(' '));
  const api = apiOf(endpoint.slice(method.length + 1));
  const url = urlOf(endpoint, opts);
  for (let attempt = 0; ; attempt++) {
    const token = await accessToken(api, attempt > 0);
    if (!token) {
      await signInInteractively(api);
      throw new ApiFailure(401, 'signed_out', undefined);
    }
    const headers: Record<string, string> = { ...opts.headers, Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), cache: 'no-store', signal: opts.signal });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      throw new ApiFailure(0, 'network', undefined);
    }
    if (res.status === 401 && attempt === 0) continue;
    if (res.status === 204) return undefined as T;
    if (res.ok) {
      // A 201 may have an empty body (POST /identity/admin/federations).
      const text = await res.text();
      return (opts.text ? text : text ? JSON.parse(text) : undefined) as T;
    }
    const body = (await res.json().catch(() => ({}))) as { error?: string; error_description?: string; code?: string; detail?: string };
    throw new ApiFailure(res.status, body.error ?? body.code ?? `http_${res.status}`, body.error_description ?? body.detail);
  }
}
