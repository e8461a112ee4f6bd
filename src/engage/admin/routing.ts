import type { Hono } from 'hono';
import { withSharedErrors } from '../../platform/http/admin-errors';
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

/**
 * The failures every route shares: the token and permission ones (spec 03's, for the engagement
 * API), and the guard's refusal of any change under an environment being deleted.
 */
const SHARED: Record<number, string> = {
  401: 'invalid_token',
  403: 'insufficient_scope, access_denied',
  404: 'administration_disabled, unknown_environment',
  409: 'environment_deleting (a change under an environment being deleted)',
};

/** A route's document: tag `engage-admin`, the bearer token, the shared failures and its own. */
export const adminDoc = <const P extends Omit<RouteDoc, 'summary' | 'tags' | 'security'>>(summary: string, parts: P) =>
  ({ summary, tags: ['engage-admin'], security: ['bearerToken'] as RouteDoc['security'], ...parts, errors: withSharedErrors(SHARED, parts.errors, '; ') });

/** Declarations of the api family's form: every violation named in one invalid_request. */
export const adminRoute = declaredRoutes<EngageAdminEnv>(
  apiInputRules({ maxBytes: MAX_BODY_BYTES, body: EngageAdminErrors.body, invalid: EngageAdminErrors.invalid }),
);
