/**
 * Route declarations that validate (issue 22 point 4): one RouteDoc per route documents it
 * (openapi.ts) AND checks its input before the handler runs: path parameters, query parameters,
 * declared headers and the JSON body, each against the schema the document publishes. The
 * handler gets the input typed (`Static` of each schema) and never sees a value its schemas
 * refuse. How a failure is worded and rendered belongs to the route's family (InputRules): the
 * mobile edge names the first violation in a Problem, the api family every violation in
 * `error_description`; the family's error renderer (family.ts) turns the thrown error into the
 * answer, as for any other failure.
 *
 * Order, the same for every route: the guards before the declaration (401 before anything
 * about the request is looked at), then the body read (413 and unreadable JSON), then
 * parameters, query, headers and the body's schema. A body declared `required: false` may be
 * absent (no length, no content type): the handler then gets `body: undefined`.
 */
import type { Context, Env, Handler } from 'hono';
import { readJsonBody, type BodyFailure } from './body';
import { described, type RouteDoc } from './openapi';
import { headerOf } from './request';
import { checker, describeViolations, violation, ViolationCode, type Checker, type Static, type TSchema, type Violation } from './schema';

/** What a family decides about input: how its body is read, how a refusal is worded. */
export interface InputRules {
  /** Reads the JSON body under the family's size cap; failures are the family's errors. */
  readBody(c: Context, body: NonNullable<RouteDoc['body']>): Promise<unknown>;
  /** `first`: the first violation of the request only; `all`: every one (one per field). */
  violations: 'first' | 'all';
  /** The family's error for the request's violations (never empty), in the order above. */
  invalid(list: Violation[]): Error;
}

type Named = Record<string, { schema: TSchema; read?: (values: string[]) => unknown }>;
/** A parameter with its own `read` has the value it reads; any other may be absent. */
type Values<R> = R extends Named
  ? { [N in keyof R as R[N] extends { read: unknown } ? N : never]: R[N] extends { read: (v: string[]) => infer V } ? V : never } & {
      [N in keyof R as R[N] extends { read: unknown } ? never : N]?: Static<R[N]['schema']>;
    }
  : Record<string, never>;

/** The validated input of a route declared with `doc`. */
export interface Input<D extends RouteDoc> {
  params: D['params'] extends Record<string, TSchema> ? { [N in keyof D['params']]: Static<D['params'][N]> } : Record<string, never>;
  query: Values<D['query']>;
  headers: Values<D['headers']>;
  body: D['body'] extends { required: false } ? BodyOf<D> | undefined : BodyOf<D>;
}

type BodyOf<D extends RouteDoc> = D['body'] extends { check: infer S extends TSchema } ? Static<S> : D['body'] extends { schema: infer S extends TSchema } ? Static<S> : undefined;

/** A request without a body: no length (or 0), no chunked transfer, no content type. */
const bodyless = (c: Context) => {
  const length = c.req.header('content-length');
  return (length === undefined || length === '0') && !c.req.header('transfer-encoding') && !c.req.header('content-type');
};

type Check = { name: string; at: string; check: Checker<TSchema> };

/**
 * A family's declaration: `route(doc, (c, input) => ...)` is the route's final handler, which
 * carries `doc` for the OpenAPI document and validates before it calls the handler.
 */
export function declaredRoutes<E extends Env>(rules: InputRules) {
  return function route<const D extends RouteDoc>(doc: D, handler: (c: Context<E>, input: Input<D>) => Response | Promise<Response>): Handler<E> {
    const params: Check[] = Object.entries(doc.params ?? {}).map(([name, s]) => ({ name, at: name, check: checker(s) }));
    const query = Object.entries(doc.query ?? {}).map(([name, q]) => ({ name, at: name, check: checker(q.schema), required: q.required ?? false, read: q.read }));
    const headers = Object.entries(doc.headers ?? {}).map(([name, h]) => ({ name, at: `${name} header`, check: checker(h.schema), required: h.required ?? false }));
    const body = doc.body ? checker(doc.body.check ?? doc.body.schema) : undefined;
    const all = rules.violations === 'all';

    const validated: Handler<E> = async (c) => {
      // A body the declaration marks `required: false` may be absent: the handler gets undefined.
      const absent = doc.body?.required === false && bodyless(c);
      const raw = doc.body && !absent ? await rules.readBody(c, doc.body) : undefined;
      const bad: Violation[] = [];
      // Stops at the first violation unless the family names them all.
      const found = (list: Violation[]) => {
        bad.push(...(all ? list : list.slice(0, 1)));
        return !all && bad.length > 0;
      };
      const check = (k: Check, value: unknown) => (all ? k.check.all(value, k.at) : nonNull(k.check(value, k.at)));

      const p: Record<string, unknown> = {};
      for (const k of params) {
        const v = c.req.param(k.name) ?? '';
        p[k.name] = v;
        if (found(check(k, v))) throw rules.invalid(bad);
      }
      const q: Record<string, unknown> = {};
      if (query.length > 0) {
        const url = c.req.url;
        const at = url.indexOf('?');
        const search = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
        for (const k of query) {
          const values = search.getAll(k.name);
          if (k.read) q[k.name] = k.read(values);
          else if (values.length > 1) {
            if (found([violation(ViolationCode.value, k.at, 'must be given once')])) throw rules.invalid(bad);
          } else if (values.length === 0) {
            if (k.required && found([violation(ViolationCode.required, k.at, 'is required')])) throw rules.invalid(bad);
          } else {
            q[k.name] = values[0];
            if (found(check(k, values[0]))) throw rules.invalid(bad);
          }
        }
      }
      const h: Record<string, unknown> = {};
      for (const k of headers) {
        const v = headerOf(c, k.name.toLowerCase());
        if (v === undefined) {
          if (k.required && found([violation(ViolationCode.required, k.at, 'is required')])) throw rules.invalid(bad);
          continue;
        }
        h[k.name] = v;
        if (found(check(k, v))) throw rules.invalid(bad);
      }
      if (body && !absent) found(all ? body.all(raw) : nonNull(body(raw)));
      if (bad.length > 0) throw rules.invalid(bad);
      return handler(c, { params: p, query: q, headers: h, body: raw } as Input<D>);
    };
    return described(doc, validated);
  };
}

const nonNull = (v: Violation | null): Violation[] => (v ? [v] : []);

/**
 * The api family's JSON rules (directory, management; the native adapter's forms have nativeFormRules): a JSON body of at most
 * `maxBytes`, its failures the surface's own (`body`), and every violation of the request named
 * in one `invalid_request` (`invalid(message)`, its error_description; issue 23).
 */
export function apiInputRules(opts: { maxBytes: number; body: (f: BodyFailure) => Error; invalid: (message: string) => Error }): InputRules {
  return {
    readBody: (c) => readJsonBody(c, { maxBytes: opts.maxBytes, fail: opts.body }),
    violations: 'all',
    invalid: (list) => opts.invalid(describeViolations(list)),
  };
}
