import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarnessWithTenant, type Harness } from '../../../test/helpers/harness';
import { cliActor } from '../../platform/audit/audit';
import { silentLogger } from '../../platform/logger';
import { createWorkQueue } from '../../platform/work/queue';
import { createImporter, type Importer } from './importer';
import { createTransferJobs, JOB_CHUNK } from './jobs';
import { transferWork } from './work';

/** User transfer jobs as work items of platform/work (issue 22 point 2). */
let h: Harness;
let tenantId: string;
beforeEach(async () => {
  ({ h, tenantId } = await createHarnessWithTenant('shop'));
});
afterEach(() => h.close());

const rec = (n: number) => ({ externalId: `ext-${n}`, email: `user${n}@example.com`, emailVerified: false, active: true });
const items = () => h.sql.all<{ kind: string; payload: string; attempts: number }>('SELECT kind, payload, attempts FROM work_items');

describe('user transfer work items', () => {
  it('a job is created with its work item; the work queue runs it and the item goes', async () => {
    const { job } = await h.services.transfer.jobs.createImport(tenantId, { schemaVersion: 1, source: 'legacy', mode: 'CREATE_ONLY', idempotencyKey: 'w-1', records: [rec(1), rec(2)] }, cliActor());
    expect(await items()).toEqual([{ kind: 'users.transfer', payload: JSON.stringify({ tenantId, kind: 'IMPORT', jobId: job.id }), attempts: 0 }]);
    await h.services.work.runDue();
    expect(await h.services.transfer.jobs.get(tenantId, 'IMPORT', job.id)).toMatchObject({ status: 'SUCCEEDED', processedItems: 2 });
    expect(await items()).toEqual([]);
  });

  it('a worker that dies mid-job holds it until its lease lapses; then another process resumes it, creating nobody twice', async () => {
    const total = 2 * JOB_CHUNK + 10;
    const { job } = await h.services.transfer.jobs.createImport(tenantId, { schemaVersion: 1, source: 'legacy', mode: 'CREATE_ONLY', idempotencyKey: 'w-2', records: Array.from({ length: total }, (_, i) => rec(i)) }, cliActor());
    // Process A's worker commits the first chunk, then hangs in the second (what kill -9 leaves).
    const a = await h.otherProcess();
    const real = createImporter({ store: a.store, clock: h.clock, sealer: a.sealer, users: a.users, mfa: a.mfa, providers: a.providers });
    let batches = 0;
    const dying: Importer = { importBatch: (...args) => (++batches === 1 ? real.importBatch(...args) : new Promise(() => undefined)) };
    const queueA = createWorkQueue({ store: a.store, clock: h.clock, logger: silentLogger });
    queueA.register(transferWork(createTransferJobs({ store: a.store, clock: h.clock, importer: dying, logger: silentLogger, wake: () => undefined })));
    void queueA.runDue();
    await expect.poll(async () => (await h.services.transfer.jobs.get(tenantId, 'IMPORT', job.id)).processedItems).toBe(JOB_CHUNK);

    // Within A's lease (renewed with its chunk), this process's worker leaves the job alone.
    await h.services.work.runDue();
    expect((await h.services.transfer.jobs.get(tenantId, 'IMPORT', job.id)).processedItems).toBe(JOB_CHUNK);
    h.clock.advance(31);
    await h.services.work.runDue();
    expect(await h.services.transfer.jobs.get(tenantId, 'IMPORT', job.id)).toMatchObject({ status: 'SUCCEEDED', processedItems: total, succeededItems: total });
    expect((await h.services.users.list(tenantId)).length).toBe(total);
    expect(await items()).toEqual([]);
  });
});
