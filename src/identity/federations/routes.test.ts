import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono, type MiddlewareHandler } from 'hono';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createFamilyApp, familyOnError } from '../../platform/http/family';
import { requestContext } from '../../platform/http/request';
import { silentLogger } from '../../platform/logger';
import { DomainError } from '../../platform/errors';
import { mountFederationRoutes } from './admin-routes';
import { apiError } from '../../../test/helpers/api-error';
import { SYSTEM_ACTOR } from '../audit';

/**
 * The management API's federation routes (spec 03), mounted as the lead mounts them on the
 * management app: here behind stand-in guards (a header names the operator; "deny" refuses).
 */
let h: Harness;
let app: Hono;
let a: string;
let b: string;
let c: string;

const guard = (scope: string): MiddlewareHandler => async (ctx, next) => {
  if (ctx.req.header('x-operator') === 'deny') throw new DomainError('forbidden', 'access_denied', `${scope} denied`);
  await next();
};

beforeAll(async () => {
  h = await createHarness();
  a = (await h.services.tenants.create({ slug: 'alpha' }, SYSTEM_ACTOR)).id;
  b = (await h.services.tenants.create({ slug: 'beta' }, SYSTEM_ACTOR)).id;
  c = (await h.services.tenants.create({ slug: 'gamma' }, SYSTEM_ACTOR)).id;
  const admin = createFamilyApp('api', { prefixes: ['/identity/admin/*'] });
  mountFederationRoutes(admin.app, {
    federations: h.services.federations,
    read: [guard('identity.admin.read')],
    manage: [guard('identity.admin.manage')],
    actor: (ctx) => ({ subject: ctx.req.header('x-operator') ?? 'op', clientId: 'engage-cli' }),
    prefix: '/identity/admin',
  });
  app = new Hono();
  app.use(requestContext(silentLogger));
  app.onError(familyOnError);
  app.route('/', admin.close());
});
afterAll(() => h.close());

type Listed = { items: { sourceIssuer: string; targetTenantId: string }[]; hasMore: boolean };

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Response | Promise<Response> =>
  app.request(`/identity/admin${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('management federation routes', () => {
  it('POST /federations: 201 with an empty body; GET lists the entry; audited', async () => {
    const res = await call('POST', '/federations', { sourceTenantId: a, targetTenantId: b });
    expect([res.status, await res.text()]).toEqual([201, '']);
    await call('POST', '/federations', { sourceTenantId: b, targetTenantId: c });
    const page = (await (await call('GET', '/federations')).json()) as Listed;
    page.items.sort((x: { sourceIssuer: string }, y: { sourceIssuer: string }) => x.sourceIssuer.localeCompare(y.sourceIssuer));
    expect(page).toEqual({
      items: [
        { sourceTenantId: a, targetTenantId: b, sourceIssuer: 'http://engage.test/t/alpha', targetIssuer: 'http://engage.test/t/beta', status: 'ACTIVE', createdAt: '2026-01-01T00:00:00.000Z' },
        { sourceTenantId: b, targetTenantId: c, sourceIssuer: 'http://engage.test/t/beta', targetIssuer: 'http://engage.test/t/gamma', status: 'ACTIVE', createdAt: '2026-01-01T00:00:00.000Z' },
      ],
      page: 0, size: 50, hasMore: false,
    });
    const first = (await (await call('GET', '/federations?size=1')).json()) as Listed;
    expect([first.items.length, first.hasMore]).toEqual([1, true]);
    const events = (await h.services.store.audit.list({ action: 'federation.created', page: 0, size: 10 })).items;
    expect(events.map((e) => [e.tenantId, e.actorSubject, e.actorClientId, e.targetId])).toContainEqual([null, 'op', 'engage-cli', `${a}/${b}`]);
    // The source tenant holds the internal confidential client, whose secret is never shown.
    const clients = await h.services.clients.list(a);
    expect(clients.map((x) => [x.clientId.replace(/-[0-9a-f]{8}$/, ''), x.tokenEndpointAuthMethod, x.redirectUris])).toEqual([
      ['federation-beta', 'CLIENT_SECRET_BASIC', ['http://engage.test/t/beta/oauth2/authorize/federation/callback']],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/secret/i);
  });

  it('DELETE /federations/{source}/{target}: 204, then gone; the source client is disabled', async () => {
    const res = await call('DELETE', `/federations/${b}/${c}`);
    expect([res.status, await res.text()]).toEqual([204, '']);
    const page = (await (await call('GET', '/federations')).json()) as Listed;
    expect(page.items.map((f: { targetTenantId: string }) => f.targetTenantId)).toEqual([b]);
    expect((await h.services.clients.list(b)).map((x) => x.status)).toEqual(['DISABLED']);
    // Federated again: a new client.
    expect((await call('POST', '/federations', { sourceTenantId: b, targetTenantId: c })).status).toBe(201);
    expect((await h.services.clients.list(b)).map((x) => x.status).sort()).toEqual(['ACTIVE', 'DISABLED']);
  });

  it.each([
    ['federated already', 'POST', '/federations', (): unknown => ({ sourceTenantId: a, targetTenantId: b }), 409, 'operation_conflict'],
    ['deleting what is not federated', 'DELETE', (): string => `/federations/${c}/${a}`, undefined, 409, 'operation_conflict'],
    ['unknown source', 'POST', '/federations', (): unknown => ({ sourceTenantId: '00000000-0000-4000-8000-000000000000', targetTenantId: b }), 404, 'unknown_tenant'],
    ['unknown target on delete', 'DELETE', (): string => `/federations/${a}/00000000-0000-4000-8000-000000000000`, undefined, 404, 'unknown_tenant'],
    ['a slug instead of an id', 'DELETE', (): string => `/federations/alpha/beta`, undefined, 400, 'invalid_request'],
    ['a tenant with itself', 'POST', '/federations', (): unknown => ({ sourceTenantId: a, targetTenantId: a }), 400, 'invalid_request'],
    ['not uuids', 'POST', '/federations', (): unknown => ({ sourceTenantId: 'alpha', targetTenantId: 'beta' }), 400, 'invalid_request'],
    ['unknown property', 'POST', '/federations', (): unknown => ({ sourceTenantId: a, targetTenantId: c, status: 'ACTIVE' }), 400, 'invalid_request'],
    ['not JSON', 'POST', '/federations', (): unknown => '{', 400, 'invalid_request'],
    ['bad page', 'GET', '/federations?page=-1', undefined, 400, 'invalid_request'],
    ['bad size', 'GET', '/federations?size=201', undefined, 400, 'invalid_request'],
  ] as const)('%s', async (_name, method, path, body, status, error) => {
    const res = await call(method, typeof path === 'function' ? path() : path, typeof body === 'function' ? body() : body);
    expect([res.status, await res.json()]).toEqual([status, apiError(error)]);
  });

  it('the declaration checks path, query and body before the handler, naming every violation (issue 22 point 4)', async () => {
    const slugs = await call('DELETE', '/federations/alpha/beta');
    expect([slugs.status, await slugs.json()]).toEqual([400, { error: 'invalid_request', error_description: 'sourceTenantId: must be a UUID; targetTenantId: must be a UUID' }]);
    const both = await call('POST', '/federations', { sourceTenantId: 'alpha', status: 'ACTIVE' });
    expect(await both.json()).toEqual({
      error: 'invalid_request',
      error_description: 'targetTenantId: is required; status: is not an allowed property; sourceTenantId: must be a UUID',
    });
  });

  it('runs behind the guards it is given', async () => {
    for (const [method, path, body] of [['GET', '/federations', undefined], ['POST', '/federations', { sourceTenantId: c, targetTenantId: a }], ['DELETE', `/federations/${a}/${b}`, undefined]] as const) {
      const res = await call(method, path, body, { 'x-operator': 'deny' });
      expect([res.status, await res.json()]).toEqual([403, { error: 'access_denied' }]);
    }
  });
});
