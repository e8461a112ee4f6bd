import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { BodyFailure } from '../../platform/http/body';
import { withSharedErrors } from '../../platform/http/admin-errors';
import type { RouteDoc } from '../../platform/http/openapi';
import { pageQuery } from '../../platform/http/pagination';
import { apiInputRules, declaredRoutes } from '../../platform/http/route';
import { Uuid } from '../../platform/http/schema';
import { MANAGEMENT_ERRORS } from '../admin/routing';
import { actorOf } from '../audit';
import type { TokenEnv } from '../token-guards';
import { TransferErrors } from './errors';
import { ExportRecord, ExportRecordPage, ExportRequest, ImportRequest, ImportRequestDoc, ImportResultPage, Job, JobPage } from './schemas';
import type { TransferService } from './service';

/** The management API scopes of these routes (spec 03 "Authentication"). */
export const TRANSFER_SCOPES = { import: 'identity.admin.users.import', export: 'identity.admin.users.export' } as const;
type TransferScope = (typeof TRANSFER_SCOPES)[keyof typeof TRANSFER_SCOPES];

export interface TransferRouteDeps {
  transfer: TransferService;
  /**
   * The management API's guard for a scope (h-admin's `AdminGuard`): a live token for
   * `identity-admin-api` with the scope and the operator's live permission of the same name.
   */
  guard: (scope: TransferScope) => MiddlewareHandler<TokenEnv>;
  /** The tenant of the path: its id, or a DomainError unknown_tenant (404). */
  tenantId: (tenantIdParam: string) => Promise<string>;
}

/** 500 records of a few hundred bytes each, with room for long hashes (spec 03 limit: 500 records). */
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
const MAX_EXPORT_BODY = 4 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TENANT = { tenantId: Uuid({ description: 'the tenant id' }) };
const JOB = { ...TENANT, jobId: Uuid({ description: 'the job id' }) };
const PAGED = { query: pageQuery };
const JOB_ERRORS = { 400: 'invalid_request', 404: 'unknown_tenant, unknown_user_transfer' };

/** Behind the management API's gate and guard: its shared failures (401, 403, 404) come first. */
const doc = <const D extends Omit<RouteDoc, 'summary'>>(summary: string, d: D) =>
  ({ summary, tags: ['management: user transfer'] as string[], security: ['bearerToken'] as RouteDoc['security'], ...d, errors: withSharedErrors(MANAGEMENT_ERRORS, d.errors) });
const json = <const S extends RouteDoc['responses'][number]['schema']>(schema: S, description: string) => ({ schema, description });

const bodyFailure = (f: BodyFailure) => TransferErrors.invalid(f.kind === 'too_large' ? `body: larger than ${f.limit} bytes` : `${f.field}: ${f.reason}`);

/**
 * The management API's declarations (issue 22 point 4): path values, the page query and the body
 * checked by the documented schemas before the handler, every violation in one invalid_request.
 * An import's body is checked as an envelope (ImportRequest: each record is checked on its own
 * and a bad one is a result, not a 400); the service takes it typed (this is its one check).
 */
const route = declaredRoutes<TokenEnv>(apiInputRules({ maxBytes: MAX_IMPORT_BYTES, body: bodyFailure, invalid: TransferErrors.invalid }));
/** The export creation's small body (an idempotency key). */
const exportRoute = declaredRoutes<TokenEnv>(apiInputRules({ maxBytes: MAX_EXPORT_BODY, body: bodyFailure, invalid: TransferErrors.invalid }));

function uuid(c: Context, name: string): string {
  const v = c.req.param(name) ?? '';
  if (!UUID.test(v)) throw TransferErrors.invalid(`${name}: must be a uuid`);
  return v.toLowerCase();
}

const found = new WeakMap<Context, { tenantId: string; jobId: string }>();
/**
 * Before a declared route: the path's tenant (400 `tenantId: must be a uuid`, then 404
 * unknown_tenant), then its job id (`jobId: must be a uuid`), before anything about the query or
 * body, in the order these routes always had. The handler reads them with `pathOf(c)`.
 */
function inTenant(deps: TransferRouteDeps, job = false): MiddlewareHandler<TokenEnv> {
  return async (c, next) => {
    const tenantId = await deps.tenantId(uuid(c, 'tenantId'));
    found.set(c, { tenantId, jobId: job ? uuid(c, 'jobId') : '' });
    await next();
  };
}
function pathOf(c: Context): { tenantId: string; jobId: string } {
  const f = found.get(c);
  if (!f) throw new Error('inTenant must run before this route');
  return f;
}

/**
 * The user-imports and user-exports routes of the management API (spec 03), relative to its
 * root `{control_issuer}/identity/admin`. Mounted by the management app with its guard
 * (h-admin's `AdminExtension`): `(admin, guard) => mountTransferRoutes(admin, { transfer, guard, tenantId })`.
 */
export function mountTransferRoutes(admin: Hono<TokenEnv>, deps: TransferRouteDeps): void {
  const { transfer } = deps;
  const imports = deps.guard(TRANSFER_SCOPES.import);
  const exports = deps.guard(TRANSFER_SCOPES.export);
  const atTenant = inTenant(deps);
  const atJob = inTenant(deps, true);
  const actor = (c: Context<TokenEnv>) => actorOf(c.get('principal'));

  /** What both kinds of job have under `path`: the tenant's page of them, one job, its cancellation. */
  const jobRoutes = (kind: 'IMPORT' | 'EXPORT', path: string, guard: MiddlewareHandler<TokenEnv>, cancelling: string) => {
    const noun = kind === 'IMPORT' ? 'import' : 'export';
    admin.get(path, guard, atTenant, route(
      doc(`A page of the tenant's ${noun} jobs, newest first`, { params: TENANT, ...PAGED, responses: { 200: json(JobPage, 'a page of jobs') }, errors: { 400: 'invalid_request', 404: 'unknown_tenant' } }),
      async (c, { query }) => c.json(await transfer.jobs.list(pathOf(c).tenantId, kind, query)),
    ));
    admin.get(`${path}/:jobId`, guard, atJob, route(
      doc(`An ${noun} job`, { params: JOB, responses: { 200: json(Job, 'the job') }, errors: JOB_ERRORS }),
      async (c) => c.json(await transfer.jobs.get(pathOf(c).tenantId, kind, pathOf(c).jobId)),
    ));
    admin.delete(`${path}/:jobId`, guard, atJob, route(
      doc(cancelling, { params: JOB, responses: { 204: { description: 'cancelled' } }, errors: JOB_ERRORS }),
      async (c) => {
        await transfer.jobs.cancel(pathOf(c).tenantId, kind, pathOf(c).jobId, actor(c));
        return c.body(null, 204);
      },
    ));
  };

  jobRoutes('IMPORT', '/tenants/:tenantId/user-imports', imports, 'Cancel an import job (records already committed stay imported; a finished job is left as it is)');
  admin.post('/tenants/:tenantId/user-imports', imports, atTenant, route(
    doc('Queue an import of at most 500 records (CREATE_ONLY or VALIDATE_ONLY); an exact retry with the same idempotencyKey returns the same job', {
      params: TENANT, body: { schema: ImportRequestDoc, check: ImportRequest }, responses: { 202: json(Job, 'the job, QUEUED (or as it stands, for a retry)') },
      errors: { 400: 'invalid_request', 404: 'unknown_tenant', 409: 'user_transfer_conflict' },
    }),
    async (c, { body }) => c.json((await transfer.jobs.createImport(pathOf(c).tenantId, body, actor(c))).job, 202),
  ));

  admin.get('/tenants/:tenantId/user-imports/:jobId/results', imports, atJob, route(
    doc("A page of an import job's results, by position", { params: JOB, ...PAGED, responses: { 200: json(ImportResultPage, 'a page of import result records') }, errors: JOB_ERRORS }),
    async (c, { query }) => c.json(await transfer.jobs.results(pathOf(c).tenantId, pathOf(c).jobId, query)),
  ));

  jobRoutes('EXPORT', '/tenants/:tenantId/user-exports', exports, 'Cancel an export job');

  // Its body may be absent (none, or an object).
  admin.post('/tenants/:tenantId/user-exports', exports, atTenant, exportRoute(
    doc("Queue an export of the tenant's users as of now (body optional: an idempotencyKey)", {
      params: TENANT, body: { schema: ExportRequest, required: false }, responses: { 202: json(Job, 'the job, QUEUED') },
      errors: { 400: 'invalid_request', 404: 'unknown_tenant', 409: 'user_transfer_conflict' },
    }),
    async (c, { body }) => c.json((await transfer.jobs.createExport(pathOf(c).tenantId, body ?? {}, actor(c))).job, 202),
  ));

  admin.get('/tenants/:tenantId/user-exports/:jobId/records', exports, atJob, route(
    doc("A page of an export's records (empty until it SUCCEEDED)", { params: JOB, ...PAGED, responses: { 200: json(ExportRecordPage, 'a page of export records') }, errors: JOB_ERRORS }),
    async (c, { query }) => c.json(await transfer.jobs.exportRecords(pathOf(c).tenantId, pathOf(c).jobId, query)),
  ));

  admin.get('/tenants/:tenantId/user-exports/:jobId/download', exports, atJob, route(
    doc('The export as NDJSON, one export record per line, streamed (empty until it SUCCEEDED)', {
      params: JOB, responses: { 200: { description: 'one export record (JSON) per line', schema: ExportRecord, type: 'ndjson' } },
      errors: JOB_ERRORS,
    }),
    async (c) => {
      const lines = await transfer.download(pathOf(c).tenantId, pathOf(c).jobId);
      // A pull stream (high-water mark 0): the next page of users is read only when the client
      // has taken the last one, so memory stays constant whatever the export's size.
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(ctrl) {
          const next = await lines.next();
          if (next.done) ctrl.close();
          else ctrl.enqueue(encoder.encode(next.value));
        },
        async cancel() {
          await lines.return(undefined);
        },
      }, { highWaterMark: 0 });
      return c.body(body, 200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' });
    },
  ));
}
