import { Hono, type Context, type Env } from 'hono';
import { matchedRoutes } from 'hono/route';
import { notFoundError, renderError, type ApiCodeOf, type ErrorFamily } from './errors';
import { docOf, stampFamily } from './openapi';

/** How a family renders a failure. */
export type FamilyRenderer = (err: unknown, c: Context) => Response;

/**
 * One sub-app per error family (problem, oauth, api). The family owns its path prefixes
 * (`/v1/*`): its routes, then `close()` answers the family's 404 for every other path under them.
 * `close()` marks each of the family's final handlers (documented routes and the 404) with its
 * renderer. The root app installs `familyOnError`, which renders with the renderer of the first
 * marked handler among the routes the request matched: the family that owns the path, whichever
 * middleware threw (the root's own form, api, when no family owns it).
 *
 * Why not hono's `onError` per sub-app: `app.route()` then wraps every handler of the sub-app in
 * its own compose and error handler, an allocation per handler per request that cost introspection
 * about a tenth of its throughput (docs/benchmarks.md). Why not a first middleware per family
 * naming the renderer: one more async layer on every request, for what only failures need.
 */
export interface FamilyApp<E extends Env> {
  readonly family: ErrorFamily;
  readonly app: Hono<E>;
  /** Adds the family's 404 for the rest of its prefixes; call after the routes are mounted. */
  close(): Hono<E>;
}

const RENDERER = Symbol.for('engage.familyRenderer');
type Marked = { [RENDERER]?: FamilyRenderer };

const ROOT_RENDERER: FamilyRenderer = (err, c) => renderError(err, c, 'api');

/** The root app's `onError`: the renderer of the family that owns the request's path. */
export function familyOnError(err: Error, c: Context): Response {
  for (const route of matchedRoutes(c)) {
    const render = (route.handler as Marked)[RENDERER];
    if (render) return render(err, c);
  }
  return ROOT_RENDERER(err, c);
}

export function createFamilyApp<E extends Env>(family: ErrorFamily, opts: { prefixes: readonly string[]; apiCode?: ApiCodeOf }): FamilyApp<E> {
  const app = new Hono<E>();
  const render: FamilyRenderer = (err, c) => renderError(err, c, family, opts.apiCode);
  const notFound = () => {
    throw notFoundError(family);
  };
  return {
    family,
    app,
    close() {
      for (const p of opts.prefixes) app.all(p, notFound);
      for (const r of app.routes) {
        if (r.handler === notFound || docOf(r.handler)) (r.handler as Marked)[RENDERER] = render;
      }
      stampFamily(app, family);
      return app;
    },
  };
}
