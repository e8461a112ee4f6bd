import type { Hono } from 'hono';
import { MAX_BODY_BYTES } from '../../platform/http/request';
import type { RouteDoc } from '../../platform/http/openapi';
import { apiInputRules, declaredRoutes } from '../../platform/http/route';
import type { EngageAdminEnv, EngageAdminGuard } from './guards';
import { EngageAdminErrors } from './errors';

/**
 * A group of engagement administration routes (issue 24), declared in its context
 * (`<context>/admin-routes.ts`) and registered in src/admin-routes.ts: called with the app
 * (paths relative to `{control_issuer}/engage/admin`) and the guard.
 */
export type EngageAdminRoutes = (admin: Hono<EngageAdminEnv>, guard: EngageAdminGuard) => void;

/** The token and permission failures every route shares (spec 03's, for the engagement API). */
const AUTH = { 401: 'invalid_token', 403: 'insufficient_scope, access_denied', 404: 'administration_disabled, unknown_environment' };

/** A route's document: tag `engage-admin`, the bearer token, the shared failures and its own. */
export const adminDoc = <const P extends Omit<RouteDoc, 'summary' | 'tags' | 'security'>>(summary: string, parts: P) =>
  ({ summary, tags: ['engage-admin'], security: ['bearerToken'] as RouteDoc['security'], ...parts, errors: { ...AUTH, ...parts.errors } });

/** Declarations of the api family's form: every violation named in one invalid_request. */
export const adminRoute = declaredRoutes<EngageAdminEnv>(
  apiInputRules({ maxBytes: MAX_BODY_BYTES, body: EngageAdminErrors.body, invalid: EngageAdminErrors.invalid }),
);
