import { Hono, type MiddlewareHandler } from 'hono';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { DomainError } from '../../platform/errors';
import { renderError } from '../../platform/http/errors';
import { openApiDocument, routeTable } from '../../platform/http/openapi';
import type { TokenEnv } from '../token-guards';
import { mountTransferRoutes } from './admin-routes';
import { apiError } from '../../../test/helpers/api-error';
import { SYSTEM_ACTOR } from '../audit';

/**
 * The user-imports and user-exports routes (spec 03) as the management app will mount them: here
 * on a bare app of the api error family with a stand-in for h-admin's guard (a bearer token
 * `scope:<scope>`), so the routes' statuses, bodies and streaming are checked before the merge.
 */
let h: Harness;
let app: Hono<TokenEnv>;
let tenantId: string;

beforeEach(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'shop' }, SYSTEM_ACTOR)).id;
  app = new Hono<TokenEnv>();
  app.onError((e, c) => renderError(e, c, 'api'));
  const guard = (scope: string): MiddlewareHandler<TokenEnv> => async (c, next) => {
    if (c.req.header('authorization') !== `Bearer scope:${scope}`) throw new DomainError('forbidden', 'insufficient_scope', scope);
    c.set('principal', { tenantId: 'control', subject: 'operator-1', clientId: 'engage-cli', scope, jti: 'j', grantId: 'g' });
    await next();
  };
  mountTransferRoutes(app, {
    transfer: h.services.transfer,
    guard,
    tenantId: async (id) => (await h.services.tenants.get(id)).id,
  });
});
afterEach(() => h.close());

const IMPORT = 'identity.admin.users.import';
const EXPORT = 'identity.admin.users.export';
const call = (method: string, path: string, scope: string, body?: unknown) =>
  app.request(`http://engage.test${path}`, {
    method,
    headers: { authorization: `Bearer scope:${scope}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const rec = (n: number) => ({ externalId: `e${n}`, email: `u${n}@example.com`, emailVerified: true, active: true });
const importBody = (records: unknown[], key = 'k1') => ({ schemaVersion: 1, source: 'legacy', mode: 'CREATE_ONLY', idempotencyKey: key, records });

describe('user-imports routes', () => {
  it('POST answers 202 QUEUED; the retry answers the same job; another payload is 409 user_transfer_conflict', async () => {
    const r = await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, importBody([rec(1), { bad: true }]));
    expect(r.status).toBe(202);
    const job = (await r.json()) as Record<string, unknown>;
    expect(Object.keys(job).sort()).toEqual(['completedAt', 'createdAt', 'failedItems', 'id', 'kind', 'lastFailure', 'mode', 'processedItems', 'source', 'startedAt', 'status', 'succeededItems', 'tenantId', 'totalItems']);
    expect(job).toMatchObject({ status: 'QUEUED', kind: 'IMPORT', tenantId, totalItems: 2 });
    const again = await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, importBody([rec(1), { bad: true }]));
    expect(again.status).toBe(202);
    expect(((await again.json()) as { id: string }).id).toBe(job.id);
    const conflict = await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, importBody([rec(2)]));
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({ error: 'user_transfer_conflict' });

    await h.services.transfer.jobs.runPending();
    const done = await call('GET', `/tenants/${tenantId}/user-imports/${job.id as string}`, IMPORT);
    expect(await done.json()).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', succeededItems: 1, failedItems: 1 });
    const results = await call('GET', `/tenants/${tenantId}/user-imports/${job.id as string}/results?page=0&size=1`, IMPORT);
    const page = (await results.json()) as { items: Record<string, unknown>[]; page: number; size: number; hasMore: boolean };
    expect(page).toMatchObject({ page: 0, size: 1, hasMore: true });
    expect(Object.keys(page.items[0]).sort()).toEqual(['email', 'errorCode', 'externalId', 'position', 'processedAt', 'status', 'subject']);
    const list = await call('GET', `/tenants/${tenantId}/user-imports`, IMPORT);
    expect(((await list.json()) as { items: { id: string }[] }).items.map((j) => j.id)).toEqual([job.id]);
  });

  it.each([
    ['a body over 500 records', importBody(Array.from({ length: 501 }, (_, i) => rec(i))), 400, 'invalid_request'],
    ['a bad schemaVersion', { ...importBody([rec(1)]), schemaVersion: 2 }, 400, 'invalid_request'],
  ])('%s: %s %s', async (_n, body, status, error) => {
    const r = await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, body);
    expect(r.status).toBe(status);
    expect(await r.json()).toEqual(apiError(error));
  });

  // The declaration is the one check of a job's request (the service takes it typed): these were the service's own.
  it.each([
    ['no records', importBody([])],
    ['an unknown mode', { ...importBody([rec(1)]), mode: 'UPSERT' }],
    ['an unknown property', { ...importBody([rec(1)]), extra: true }],
    ['no idempotencyKey', { schemaVersion: 1, source: 'legacy', mode: 'CREATE_ONLY', records: [rec(1)] }],
  ])('%s is 400 invalid_request, no job made', async (_n, body) => {
    const r = await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, body);
    expect([r.status, ((await r.json()) as { error: string }).error]).toEqual([400, 'invalid_request']);
    expect((await h.services.transfer.jobs.list(tenantId, 'IMPORT', { page: 0, size: 50 })).items).toEqual([]);
  });

  it('unknown jobs and tenants are 404; bad ids and pages are 400; DELETE is 204', async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    expect(await (await call('GET', `/tenants/${tenantId}/user-imports/${other}`, IMPORT)).json()).toEqual({ error: 'unknown_user_transfer' });
    expect((await call('GET', `/tenants/${other}/user-imports`, IMPORT)).status).toBe(404);
    expect((await call('GET', `/tenants/${tenantId}/user-imports/nope`, IMPORT)).status).toBe(400);
    expect((await call('GET', `/tenants/${tenantId}/user-imports?size=201`, IMPORT)).status).toBe(400);
    const job = (await (await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, importBody([rec(1)]))).json()) as { id: string };
    const del = await call('DELETE', `/tenants/${tenantId}/user-imports/${job.id}`, IMPORT);
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    expect(await (await call('GET', `/tenants/${tenantId}/user-imports/${job.id}`, IMPORT)).json()).toMatchObject({ status: 'CANCELLED' });
    // The export scope does not reach import routes.
    expect((await call('GET', `/tenants/${tenantId}/user-imports`, EXPORT)).status).toBe(403);
  });

  it('declared routes keep the path first, and name every violation of an import envelope (issue 22 point 4)', async () => {
    const other = '00000000-0000-4000-8000-000000000000';
    const described = async (r: Response) => [r.status, await r.json()];
    expect(await described(await call('POST', '/tenants/nope/user-imports', IMPORT, { mode: 'X' }))).toEqual([400, { error: 'invalid_request', error_description: 'tenantId: must be a uuid' }]);
    expect(await described(await call('POST', `/tenants/${other}/user-imports`, IMPORT, { mode: 'X' }))).toEqual([404, { error: 'unknown_tenant' }]);
    expect(await described(await call('GET', `/tenants/${tenantId}/user-exports/nope/records?size=0`, EXPORT))).toEqual([400, { error: 'invalid_request', error_description: 'jobId: must be a uuid' }]);
    // Records are checked one by one (a bad one is a result): the envelope only is a 400.
    const envelope = await call('POST', `/tenants/${tenantId}/user-imports`, IMPORT, { ...importBody([{ bad: true }]), mode: 'X', source: '' });
    expect(await described(envelope)).toEqual([
      400,
      { error: 'invalid_request', error_description: 'source: must be at least 1 character; mode: must be one of CREATE_ONLY, VALIDATE_ONLY' },
    ]);
  });
});

describe('user-exports routes', () => {
  it('POST 202, then records paged and the download streamed as application/x-ndjson', async () => {
    for (let i = 0; i < 3; i++) await h.services.users.create(tenantId, { email: `u${i}@example.com` }, SYSTEM_ACTOR);
    h.clock.advance(1);
    const created = await call('POST', `/tenants/${tenantId}/user-exports`, EXPORT);
    expect(created.status).toBe(202);
    const job = (await created.json()) as { id: string; status: string };
    expect(job.status).toBe('QUEUED');
    await h.services.transfer.jobs.runPending();
    expect(await (await call('GET', `/tenants/${tenantId}/user-exports/${job.id}`, EXPORT)).json()).toMatchObject({ status: 'SUCCEEDED', totalItems: 3 });
    const records = (await (await call('GET', `/tenants/${tenantId}/user-exports/${job.id}/records?size=2`, EXPORT)).json()) as { items: unknown[]; hasMore: boolean };
    expect(records.items).toHaveLength(2);
    expect(records.hasMore).toBe(true);
    const dl = await call('GET', `/tenants/${tenantId}/user-exports/${job.id}/download`, EXPORT);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await dl.text()).trim().split('\n').map((l) => JSON.parse(l) as { position: number });
    expect(lines.map((l) => l.position)).toEqual([0, 1, 2]);
    expect((await call('POST', `/tenants/${tenantId}/user-exports`, EXPORT, { unknown: 1 })).status).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('every transfer route is documented; the download is application/x-ndjson of export records', () => {
    const table = routeTable(app);
    expect(table.undocumented).toEqual([]);
    expect(table.documented.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'delete /tenants/{tenantId}/user-exports/{jobId}', 'delete /tenants/{tenantId}/user-imports/{jobId}',
      'get /tenants/{tenantId}/user-exports', 'get /tenants/{tenantId}/user-exports/{jobId}', 'get /tenants/{tenantId}/user-exports/{jobId}/download',
      'get /tenants/{tenantId}/user-exports/{jobId}/records', 'get /tenants/{tenantId}/user-imports', 'get /tenants/{tenantId}/user-imports/{jobId}',
      'get /tenants/{tenantId}/user-imports/{jobId}/results', 'post /tenants/{tenantId}/user-exports', 'post /tenants/{tenantId}/user-imports',
    ]);
    const doc = openApiDocument(app, { version: 'test', publicUrl: 'http://engage.test' }) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
    const download = doc.paths['/tenants/{tenantId}/user-exports/{jobId}/download'].get.responses['200'];
    expect(Object.keys(download.content!)).toEqual(['application/x-ndjson']);
    expect(Object.keys(doc.paths['/tenants/{tenantId}/user-imports'].post.responses).sort()).toEqual(['202', '400', '401', '403', '404', '409']);
  });
});
