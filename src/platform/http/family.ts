import { Hono, type Env } from 'hono';
import { notFoundError, renderError, type ApiCodeOf, type ErrorFamily } from './errors';
import { stampFamily } from './openapi';

/**
 * One sub-app per error family (problem, oauth, api): its own `onError`, and its own not-found
 * answer for the path prefixes it owns. hono runs a mounted sub-app's error handler around each
 * of its routes, so a failure anywhere under it (a guard, a handler) answers in its family,
 * with no family picked from the path.
 */
export interface FamilyApp<E extends Env> {
  readonly family: ErrorFamily;
  readonly app: Hono<E>;
  /**
   * Answers the family's 404 for every other path under these prefixes (`/v1/*`). Call after
   * the routes are mounted: hono tries handlers in the order they were added.
   */
  closePrefixes(...prefixes: string[]): Hono<E>;
}

export function createFamilyApp<E extends Env>(family: ErrorFamily, opts: { apiCode?: ApiCodeOf } = {}): FamilyApp<E> {
  const app = new Hono<E>();
  app.onError((err, c) => renderError(err, c, family, opts.apiCode));
  const notFound = () => {
    throw notFoundError(family);
  };
  app.notFound(notFound);
  return {
    family,
    app,
    closePrefixes(...prefixes) {
      for (const p of prefixes) app.all(p, notFound);
      stampFamily(app, family);
      return app;
    },
  };
}
