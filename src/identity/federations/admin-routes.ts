import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import { every } from 'hono/combine';
import type { AuditActor } from '../../platform/audit/audit';
import { readJsonBody } from '../../platform/http/body';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { pageQuery, readPage } from '../../platform/http/pagination';
import { validInput } from '../../platform/http/schema';
import { FederationErrors } from './errors';
import { checkFederationCreate, FederationCreate, FederationPage } from './schemas';
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
const doc = (summary: string, parts: Omit<RouteDoc, 'summary' | 'tags' | 'security'>): RouteDoc => ({ summary, tags: ['admin'], security: ['bearerToken'], ...parts, errors: { ...AUTH, ...parts.errors } });

/**
 * The management API's federation routes (spec 03: `GET/POST /federations`,
 * `DELETE /federations/{sourceTenantId}/{targetTenantId}`), for the lead to mount on the
 * management app with its guards. Federations are environment-wide: their audit events carry no tenant.
 */
export function mountFederationRoutes<E extends Env>(admin: Hono<E>, deps: FederationRouteDeps): void {
  const { federations } = deps;
  const p = deps.prefix ?? '';
  const body = (c: Context) =>
    readJsonBody(c, { maxBytes: 4096, fail: (f) => FederationErrors.invalid(f.kind === 'too_large' ? 'body too large' : `${f.field}: ${f.reason}`) });
  const app = admin as unknown as Hono;
  const read = every(...deps.read);
  const manage = every(...deps.manage);

  app.get(`${p}/federations`, read, described(
    doc('List federations', { query: pageQuery, responses: { 200: { description: 'a page of federations', schema: FederationPage } }, errors: { 400: 'invalid_request (page query)' } }),
    async (c) => c.json(await federations.list(readPage(c))),
  ));
  app.post(`${p}/federations`, manage, described(
    doc('Federate a source tenant to a target tenant: its users may sign in at the target through the source', {
      body: { schema: FederationCreate },
      responses: { 201: { description: 'empty body' } },
      errors: { 400: 'invalid_request', 409: 'operation_conflict (federated already)' },
    }),
    async (c) => {
      const input = validInput(checkFederationCreate, await body(c), FederationErrors.invalid);
      await federations.create(input.sourceTenantId, input.targetTenantId, deps.actor(c), { byIdOnly: true });
      return c.body(null, 201);
    },
  ));
  app.delete(`${p}/federations/:sourceTenantId/:targetTenantId`, manage, described(
    doc('Delete a federation: sign-ins through the source stop at once', {
      params: TenantIdParam,
      responses: { 204: { description: 'empty body' } },
      errors: { 400: 'invalid_request (tenant ids)', 409: 'operation_conflict (not federated)' },
    }),
    async (c) => {
      await federations.remove(c.req.param('sourceTenantId') ?? '', c.req.param('targetTenantId') ?? '', deps.actor(c), { byIdOnly: true });
      return c.body(null, 204);
    },
  ));
}
