import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { cliActor } from '../../platform/audit/audit';
import { silentLogger } from '../../platform/logger';
import { createImporter, type Importer } from './importer';
import { createTransferJobs, JOB_CHUNK } from './jobs';
import type { ImportRequest } from './schemas';
import { SYSTEM_ACTOR } from '../audit';

/** The user-imports and user-exports jobs (spec 03), their worker, and its resumption after a crash. */
let h: Harness;
let tenantId: string;
const actor = cliActor();

beforeEach(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'shop' }, SYSTEM_ACTOR)).id;
});
afterEach(() => h.close());

const rec = (n: number, extra: Record<string, unknown> = {}) => ({ externalId: `ext-${n}`, email: `user${n}@example.com`, emailVerified: n % 2 === 0, active: true, ...extra });
const request = (records: unknown[], over: Partial<ImportRequest> = {}): ImportRequest => ({ schemaVersion: 1, source: 'legacy', mode: 'CREATE_ONLY', idempotencyKey: 'k-1', records, ...over });
const jobs = () => h.services.transfer.jobs;

async function allResults(jobId: string) {
  const out = [];
  for (let page = 0; ; page++) {
    const p = await jobs().results(tenantId, jobId, { page, size: 200 });
    out.push(...p.items);
    if (!p.hasMore) return out;
  }
}

describe('user import jobs', () => {
  it('QUEUED, then the worker runs it: SUCCEEDED or COMPLETED_WITH_ERRORS with results per position', async () => {
    const records = [rec(0), rec(1, { password: { hash: '$nope$' } }), rec(2), rec(0, { email: 'x@example.com' })];
    const { job, created } = await jobs().createImport(tenantId, request(records), actor);
    expect(created).toBe(true);
    expect(job).toMatchObject({ kind: 'IMPORT', status: 'QUEUED', source: 'legacy', mode: 'CREATE_ONLY', totalItems: 4, processedItems: 0, startedAt: null });
    await jobs().runPending();
    expect(await jobs().get(tenantId, 'IMPORT', job.id)).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', processedItems: 4, succeededItems: 2, failedItems: 2, lastFailure: null });
    const results = await allResults(job.id);
    expect(results.map((r) => [r.position, r.externalId, r.status, r.errorCode])).toEqual([
      [0, 'ext-0', 'SUCCEEDED', null], [1, 'ext-1', 'FAILED', 'unknown_hash_format'], [2, 'ext-2', 'SUCCEEDED', null], [3, 'ext-0', 'FAILED', 'duplicate_external_id'],
    ]);
    expect(results[0].subject).toBe((await h.services.users.findByEmail(tenantId, 'user0@example.com'))!.subject);
    expect(results[1].subject).toBeNull();

    const clean = await jobs().createImport(tenantId, request([rec(5)], { idempotencyKey: 'k-2' }), actor);
    await jobs().runPending();
    expect((await jobs().get(tenantId, 'IMPORT', clean.job.id)).status).toBe('SUCCEEDED');
  });

  it('idempotencyKey: an exact retry returns the same job; another payload with the key is user_transfer_conflict', async () => {
    const first = await jobs().createImport(tenantId, request([rec(1), rec(2)]), actor);
    // Same request with its keys in another order is the same request.
    const retry = await jobs().createImport(tenantId, { records: [rec(1), rec(2)], idempotencyKey: 'k-1', mode: 'CREATE_ONLY', source: 'legacy', schemaVersion: 1 }, actor);
    expect(retry).toEqual({ job: first.job, created: false });
    await expect(jobs().createImport(tenantId, request([rec(1)]), actor)).rejects.toMatchObject({ code: 'user_transfer_conflict' });
    await expect(jobs().createImport(tenantId, request([rec(1), rec(2)], { mode: 'VALIDATE_ONLY' }), actor)).rejects.toMatchObject({ code: 'user_transfer_conflict' });
    // Keys are per tenant.
    const other = (await h.services.tenants.create({ slug: 'corp' }, SYSTEM_ACTOR)).id;
    expect((await jobs().createImport(other, request([rec(1)]), actor)).created).toBe(true);
    expect((await jobs().list(tenantId, 'IMPORT', { page: 0, size: 50 })).items.map((j) => j.id)).toEqual([first.job.id]);
  });

  it('unknown job ids, and jobs of another tenant, are unknown_user_transfer', async () => {
    const { job } = await jobs().createImport(tenantId, request([rec(1)]), actor);
    const other = (await h.services.tenants.create({ slug: 'corp' }, SYSTEM_ACTOR)).id;
    await expect(jobs().get(other, 'IMPORT', job.id)).rejects.toMatchObject({ code: 'unknown_user_transfer' });
    await expect(jobs().get(tenantId, 'EXPORT', job.id)).rejects.toMatchObject({ code: 'unknown_user_transfer' });
    await expect(jobs().get(tenantId, 'IMPORT', 'not-a-uuid')).rejects.toMatchObject({ code: 'unknown_user_transfer' });
    await expect(jobs().cancel(other, 'IMPORT', job.id, actor)).rejects.toMatchObject({ code: 'unknown_user_transfer' });
  });

  it('a cancelled QUEUED job never runs; cancelling a finished job changes nothing', async () => {
    const { job } = await jobs().createImport(tenantId, request([rec(1)]), actor);
    await jobs().cancel(tenantId, 'IMPORT', job.id, actor);
    await jobs().runPending();
    expect(await jobs().get(tenantId, 'IMPORT', job.id)).toMatchObject({ status: 'CANCELLED', processedItems: 0 });
    expect(await h.services.users.list(tenantId)).toEqual([]);
    const done = await jobs().createImport(tenantId, request([rec(2)], { idempotencyKey: 'k-2' }), actor);
    await jobs().runPending();
    await jobs().cancel(tenantId, 'IMPORT', done.job.id, actor);
    expect((await jobs().get(tenantId, 'IMPORT', done.job.id)).status).toBe('SUCCEEDED');
  });

  it('a RUNNING job whose process died resumes from its last committed record, creating nobody twice', async () => {
    const total = 2 * JOB_CHUNK + 50;
    const records = Array.from({ length: total }, (_, i) => rec(i, i === 7 ? { email: 'bad' } : {}));
    const { job } = await jobs().createImport(tenantId, request(records), actor);

    // Process A: its worker commits the first chunk, then dies inside the second (the promise
    // never settles, nothing more is written: what kill -9 leaves behind).
    const a = await h.otherProcess();
    const real = createImporter({ store: a.store, clock: h.clock, sealer: a.sealer, users: a.users, mfa: a.mfa, providers: a.providers });
    let batches = 0;
    const dying: Importer = { importBatch: (...args) => (++batches === 1 ? real.importBatch(...args) : new Promise(() => undefined)) };
    const workerA = createTransferJobs({ store: a.store, clock: h.clock, importer: dying, logger: silentLogger, wake: () => undefined });
    void workerA.runPending();
    await expect.poll(async () => (await jobs().get(tenantId, 'IMPORT', job.id)).processedItems).toBe(JOB_CHUNK);
    expect((await jobs().get(tenantId, 'IMPORT', job.id)).status).toBe('RUNNING');
    expect((await h.services.users.list(tenantId)).length).toBe(JOB_CHUNK - 1);

    // The restarted process (here: this one) picks the RUNNING job up where it stopped.
    await jobs().runPending();
    const finished = await jobs().get(tenantId, 'IMPORT', job.id);
    expect(finished).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', processedItems: total, succeededItems: total - 1, failedItems: 1 });
    const results = await allResults(job.id);
    expect(results.map((r) => r.position)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(results.filter((r) => r.status === 'FAILED').map((r) => [r.position, r.errorCode])).toEqual([[7, 'malformed_record']]);
    const users = await h.services.users.list(tenantId);
    expect(users.length).toBe(total - 1);
    expect(new Set(users.map((u) => u.email)).size).toBe(total - 1);
    expect(new Set(results.filter((r) => r.subject).map((r) => r.subject))).toEqual(new Set(users.map((u) => u.subject)));
  });

  it('the creation is audited in its transaction; the payload is dropped once the job ends', async () => {
    const { job } = await jobs().createImport(tenantId, request([rec(1, { password: { hash: '$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm' } })]), actor);
    await jobs().runPending();
    const events = await h.services.store.audit.list({ tenantId, action: 'user_import.created', page: 0, size: 10 });
    expect(events.items.map((e) => e.targetId)).toEqual([job.id]);
    expect(JSON.stringify(events.items[0].details)).not.toContain('$2b$');
    const row = await h.sql.get<{ payload: string | null }>('SELECT payload FROM user_transfer_jobs WHERE id = ?', [job.id]);
    expect(row!.payload).toBeNull();
  });
});

describe('user export jobs', () => {
  it('QUEUED, SUCCEEDED with the count; records paged and the NDJSON download are the snapshot', async () => {
    for (let i = 0; i < 5; i++) {
      await h.services.users.create(tenantId, { email: `u${i}@example.com`, emailVerified: i === 0 }, SYSTEM_ACTOR);
      h.clock.advance(1);
    }
    const { job } = await jobs().createExport(tenantId, {}, actor);
    expect(job).toMatchObject({ kind: 'EXPORT', status: 'QUEUED' });
    expect((await jobs().exportRecords(tenantId, job.id, { page: 0, size: 2 })).items).toEqual([]);
    h.clock.advance(1);
    await h.services.users.create(tenantId, { email: 'late@example.com' }, SYSTEM_ACTOR); // after the snapshot
    await jobs().runPending();
    expect(await jobs().get(tenantId, 'EXPORT', job.id)).toMatchObject({ status: 'SUCCEEDED', totalItems: 5, processedItems: 5 });
    const p1 = await jobs().exportRecords(tenantId, job.id, { page: 1, size: 2 });
    expect(p1).toMatchObject({ page: 1, size: 2, hasMore: true });
    expect(p1.items.map((r) => [r.position, r.email])).toEqual([[2, 'u2@example.com'], [3, 'u3@example.com']]);
    let text = '';
    for await (const chunk of await h.services.transfer.download(tenantId, job.id)) text += chunk;
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.email)).toEqual(['u0@example.com', 'u1@example.com', 'u2@example.com', 'u3@example.com', 'u4@example.com']);
    expect(Object.keys(lines[0]).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'position', 'status', 'subject']);
    expect(lines[0]).toMatchObject({ position: 0, emailVerified: true, status: 'ACTIVE' });
  });

  it('a cancelled export has no records', async () => {
    await h.services.users.create(tenantId, { email: 'u@example.com' }, SYSTEM_ACTOR);
    const { job } = await jobs().createExport(tenantId, undefined, actor);
    await jobs().cancel(tenantId, 'EXPORT', job.id, actor);
    await jobs().runPending();
    expect((await jobs().get(tenantId, 'EXPORT', job.id)).status).toBe('CANCELLED');
    let text = '';
    for await (const chunk of await h.services.transfer.download(tenantId, job.id)) text += chunk;
    expect(text).toBe('');
  });
});
