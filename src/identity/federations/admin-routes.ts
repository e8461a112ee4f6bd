import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { AuditActor } from '../../platform/audit/audit';
import type { RouteDoc } from '../../platform/http/openapi';
import { pageQuery } from '../../platform/http/pagination';
import { apiInputRules, declaredRoutes } from '../../platform/http/route';
import { FederationErrors } from './errors';
import { FederationCreate, FederationPage } from './schemas';
import type { FederationService } from './service';

export interface FederationRouteDeps {
  federations: FederationService;
  /** The management API's guards for reads (identity.admin.read) and mutations (identity.admin.manage), each with the live permission. */
  read: readonly MiddlewareHandler[];
  manage: readonly MiddlewareHandler[];
  /** The audit actor of a request (the token's subject and client). */
  actor: (c: Context) => AuditActor;
  /** Where the management routes live in `admin` (default: its root). */
  prefix?: string;
}

const TenantIdParam = { sourceTenantId: FederationCreate.properties.sourceTenantId, targetTenantId: FederationCreate.properties.targetTenantId };
const AUTH = { 401: 'invalid_token', 403: 'insufficient_scope, access_denied', 404: 'administration_disabled, unknown_tenant' };
const doc = <const P extends Omit<RouteDoc, 'summary' | 'tags' | 'security'>>(summary: string, parts: P) =>
  ({ summary, tags: ['admin'], security: ['bearerToken'] as RouteDoc['security'], ...parts, errors: { ...AUTH, ...parts.errors } });

/** Route declarations of the management API's form: every violation named in one invalid_request. */
const route = declaredRoutes(
  apiInputRules({ maxBytes: 4096, body: (f) => FederationErrors.invalid(f.kind === 'too_large' ? 'body too large' : `${f.field}: ${f.reason}`), invalid: FederationErrors.invalid }),
);

/**
 * The management API's federation routes (spec 03: `GET/POST /federations`,
 * `DELETE /federations/{sourceTenantId}/{targetTenantId}`), for the lead to mount on the
 * management app with its guards. Federations are environment-wide: their audit events carry no tenant.
 */
export function mountFederationRoutes<E extends Env>(admin: Hono<E>, deps: FederationRouteDeps): void {
  const { federations } = deps;
  const p = deps.prefix ?? '';
  const app = admin as unknown as Hono;
  const read = every(...deps.read);
  const manage = every(...deps.manage);

  app.get(`${p}/federations`, read, route(
    doc('List federations', { query: pageQuery, responses: { 200: { description: 'a page of federations', schema: FederationPage } }, errors: { 400: 'invalid_request (page query)' } }),
    async (c, input) => c.json(await federations.list(input.query)),
  ));
  app.post(`${p}/federations`, manage, route(
    doc('Federate a source tenant to a target tenant: its users may sign in at the target through the source', {
      body: { schema: FederationCreate },
      responses: { 201: { description: 'empty body' } },
      errors: { 400: 'invalid_request', 409: 'operation_conflict (federated already)' },
    }),
    async (c, { body }) => {
      await federations.create(body.sourceTenantId, body.targetTenantId, deps.actor(c), { byIdOnly: true });
      return c.body(null, 201);
    },
  ));
  app.delete(`${p}/federations/:sourceTenantId/:targetTenantId`, manage, route(
    doc('Delete a federation: sign-ins through the source stop at once', {
      params: TenantIdParam,
      responses: { 204: { description: 'empty body' } },
      errors: { 400: 'invalid_request (tenant ids)', 409: 'operation_conflict (not federated)' },
    }),
    async (c, { params }) => {
      await federations.remove(params.sourceTenantId, params.targetTenantId, deps.actor(c), { byIdOnly: true });
      return c.body(null, 204);
    },
  ));
}
