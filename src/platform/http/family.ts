import { Hono, type Context, type Env, type MiddlewareHandler } from 'hono';
import { notFoundError, renderError, type ApiCodeOf, type ErrorFamily } from './errors';
import { stampFamily } from './openapi';

/** How a family renders a failure (set on the request by the family that owns its path). */
export type FamilyRenderer = (err: unknown, c: Context) => Response;

/**
 * One sub-app per error family (problem, oauth, api). The family owns its path prefixes
 * (`/v1/*`): a first middleware on them names the family's renderer for the request, routes
 * follow, and `close()` answers the family's 404 for every other path under them. The root app
 * installs `familyOnError`, which renders with the renderer of the family that took the request
 * (the root's own form, api, before any family did).
 *
 * Why not hono's `onError` per sub-app: `app.route()` then wraps every handler of the sub-app in
 * its own compose and error handler, an allocation per handler per request that cost introspection
 * about a tenth of its throughput (docs/benchmarks.md).
 */
export interface FamilyApp<E extends Env> {
  readonly family: ErrorFamily;
  readonly app: Hono<E>;
  /** Adds the family's 404 for the rest of its prefixes; call after the routes are mounted. */
  close(): Hono<E>;
}

const ROOT_RENDERER: FamilyRenderer = (err, c) => renderError(err, c, 'api');

/** The root app's `onError`: the renderer of the family that owns the request's path. */
export function familyOnError(err: Error, c: Context): Response {
  return ((c.get('renderError') as FamilyRenderer | undefined) ?? ROOT_RENDERER)(err, c);
}

export function createFamilyApp<E extends Env>(family: ErrorFamily, opts: { prefixes: readonly string[]; apiCode?: ApiCodeOf }): FamilyApp<E> {
  const app = new Hono<E>();
  const render: FamilyRenderer = (err, c) => renderError(err, c, family, opts.apiCode);
  const boundary: MiddlewareHandler = (c, next) => {
    c.set('renderError', render);
    return next();
  };
  for (const p of opts.prefixes) app.use(p, boundary);
  const notFound = () => {
    throw notFoundError(family);
  };
  return {
    family,
    app,
    close() {
      for (const p of opts.prefixes) app.all(p, notFound);
      stampFamily(app, family);
      return app;
    },
  };
}
