import { checkReplay, requestDigest } from '../../platform/idempotency';
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import type { AuditActor } from '../../platform/audit/audit';
import type { AuditStore } from '../../platform/audit/store';
import { pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { Logger } from '../../platform/logger';
import { UniqueViolation } from '../../platform/store/sql';
import type { TxRunner } from '../../platform/store/store';
import { insertWorkItemIn } from '../../platform/work/queue';
import type { WorkStore } from '../../platform/work/store';
import type { Lease } from '../../platform/work/worker';
import { TransferErrors } from './errors';
import type { ImportOutcome, Importer } from './importer';
import type { ExportRecord, ExportRequest, ImportMode, ImportRequest, JobView } from './schemas';
import type { TransferJobRow, TransferResultRow, TransferStore } from './store';

type Kind = 'IMPORT' | 'EXPORT';
type Stores = { transfer: TransferStore; audit: AuditStore; work: WorkStore };

/** Records per transaction of an API import job: each commit moves the job's position. */
export const JOB_CHUNK = 100;

const view = (j: TransferJobRow): JobView => ({
  id: j.id,
  tenantId: j.tenantId,
  kind: j.kind,
  status: j.status,
  source: j.source,
  mode: j.mode,
  totalItems: Number(j.totalItems),
  processedItems: Number(j.processedItems),
  succeededItems: Number(j.succeededItems),
  failedItems: Number(j.failedItems),
  createdAt: j.createdAt,
  startedAt: j.startedAt,
  completedAt: j.completedAt,
  lastFailure: j.lastFailure,
});


/** Thrown inside a chunk's transaction when the job moved under us (cancelled, or another runner). */
class JobMoved extends Error {}

/**
 * The user-imports and user-exports jobs of the management API (spec 03, issue 12). Creation
 * answers QUEUED with the job's work item (platform/work) written in the same transaction, and
 * wakes the worker after commit; the worker (`runWork`, under the item's lease) imports
 * JOB_CHUNK records per transaction, each commit writing the users, their results and the
 * job's new position together, conditional on the position it started from: after a `kill -9`
 * the next runner resumes from the last committed record, and nobody is created twice.
 */
export function createTransferJobs(deps: { store: Stores & TxRunner<Stores>; clock: Clock; importer: Importer; logger: Logger; wake: () => void }) {
  const { store, clock, importer, logger } = deps;
  const now = () => clock.now().toISOString();

  async function create(tenantId: string, kind: Kind, key: string | undefined, fields: Pick<TransferJobRow, 'source' | 'mode' | 'payload' | 'totalItems' | 'snapshotAt'>, request: unknown, actor: AuditActor) {
    const digest = key === undefined ? null : requestDigest(request);
    const id = newId();
    for (let attempt = 1; ; attempt++) {
      try {
        const job = await store.tx(async (tx) => {
          if (key !== undefined) {
            const prior = await tx.transfer.findJobByKey(tenantId, kind, key);
            if (prior) {
              checkReplay(prior.requestDigest, digest!, TransferErrors.conflict);
              return { row: prior, created: false };
            }
          }
          await tx.transfer.insertJob({ id, tenantId, kind, idempotencyKey: key ?? null, requestDigest: digest, createdAt: now(), ...fields });
          await tx.audit.record(actor, {
            tenantId,
            action: kind === 'IMPORT' ? 'user_import.created' : 'user_export.created',
            targetType: kind === 'IMPORT' ? 'user_import' : 'user_export',
            targetId: id,
            details: { source: fields.source, mode: fields.mode, totalItems: fields.totalItems },
            at: clock.now(),
          });
          // The job's work item (platform/work, kind users.transfer), due at once; the worker is woken after commit.
          await insertWorkItemIn(tx, TRANSFER_WORK, { tenantId, kind, jobId: id } satisfies TransferWork, clock.now().getTime());
          tx.afterCommit(deps.wake);
          return { row: (await tx.transfer.findJob(tenantId, kind, id))!, created: true };
        });
        return { job: view(job.row), created: job.created };
      } catch (e) {
        // A concurrent twin with the same key committed first: read it on the next attempt.
        if (!(e instanceof UniqueViolation) || attempt >= 3) throw e;
      }
    }
  }

  async function find(tenantId: string, kind: Kind, id: string): Promise<TransferJobRow> {
    const job = typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id) ? await store.transfer.findJob(tenantId, kind, id) : undefined;
    if (!job) throw TransferErrors.unknown(id);
    return job;
  }

  async function cancel(tenantId: string, kind: Kind, id: string, actor: AuditActor): Promise<void> {
    await find(tenantId, kind, id);
    await store.tx(async (tx) => {
      // Terminal jobs stay as they are: cancelling one is answered 204 and changes nothing.
      if (await tx.transfer.cancelJob(tenantId, kind, id, now())) {
        await tx.audit.record(actor, { tenantId, action: kind === 'IMPORT' ? 'user_import.cancelled' : 'user_export.cancelled', targetType: kind === 'IMPORT' ? 'user_import' : 'user_export', targetId: id, at: clock.now() });
      }
    });
  }

  async function runImport(job: TransferJobRow, lease?: Lease): Promise<void> {
    const records = JSON.parse(job.payload ?? '[]') as unknown[];
    let pos = Number(job.processedItems);
    let failed = Number(job.failedItems);
    while (pos < records.length) {
      const from = pos;
      const items = records.slice(from, from + JOB_CHUNK).map((record, i) => ({ position: from + i, record }));
      try {
        await importer.importBatch(job.tenantId, job.source!, job.mode as ImportMode, items, {
          existing: 'fail',
          inTx: async (tx, outcomes: ImportOutcome[]) => {
            const bad = outcomes.filter((o) => o.status === 'FAILED').length;
            const t = now();
            if (!(await (tx as unknown as Stores).transfer.advanceJob(job.id, from, outcomes.length, outcomes.length - bad, bad))) throw new JobMoved();
            await (tx as unknown as Stores).transfer.insertResults(outcomes.map((o): TransferResultRow => ({
              jobId: job.id, position: o.position, externalId: o.externalId, email: o.email, status: o.status === 'FAILED' ? 'FAILED' : 'SUCCEEDED', subject: o.subject, errorCode: o.errorCode, processedAt: t,
            })));
            failed += bad;
          },
        });
      } catch (e) {
        if (e instanceof JobMoved) return; // cancelled meanwhile, or another runner has it
        throw e;
      }
      pos = from + items.length;
      // Under the worker's lease: renewed with each committed chunk; lost means another worker has the job.
      if (lease && pos < records.length && !(await lease.renew())) return;
    }
    await store.tx((tx) => tx.transfer.finishJob(job.id, failed > 0 ? 'COMPLETED_WITH_ERRORS' : 'SUCCEEDED', now(), null));
  }

  async function runExport(job: TransferJobRow): Promise<void> {
    const total = await store.transfer.countUsers(job.tenantId, job.snapshotAt!);
    await store.tx((tx) => tx.transfer.completeExport(job.id, total, now()));
  }

  /** Runs one job not finished (QUEUED, or RUNNING whose runner died); a failure ends it FAILED. */
  async function runJob(job: TransferJobRow, lease?: Lease): Promise<void> {
    if (!(await store.tx((tx) => tx.transfer.startJob(job.id, now())))) return;
    const running = (await store.transfer.findJob(job.tenantId, job.kind, job.id))!;
    try {
      if (running.kind === 'IMPORT') await runImport(running, lease);
      else await runExport(running);
    } catch (e) {
      logger.error('user transfer job failed', { jobId: job.id, err: e });
      await store.tx((tx) => tx.transfer.finishJob(job.id, 'FAILED', now(), 'internal_error'));
    }
  }

  return {
    // Jobs are created over HTTP only: the route's declaration checks the request (records one by one later, as results).
    async createImport(tenantId: string, req: ImportRequest, actor: AuditActor): Promise<{ job: JobView; created: boolean }> {
      return create(tenantId, 'IMPORT', req.idempotencyKey, {
        source: req.source, mode: req.mode, payload: JSON.stringify(req.records), totalItems: req.records.length, snapshotAt: null,
      }, req, actor);
    },
    async createExport(tenantId: string, req: ExportRequest = {}, actor: AuditActor): Promise<{ job: JobView; created: boolean }> {
      return create(tenantId, 'EXPORT', req.idempotencyKey, { source: null, mode: null, payload: null, totalItems: 0, snapshotAt: now() }, req, actor);
    },
    async get(tenantId: string, kind: Kind, id: string): Promise<JobView> {
      return view(await find(tenantId, kind, id));
    },
    async list(tenantId: string, kind: Kind, req: PageRequest): Promise<Page<JobView>> {
      const page = pageFrom(await store.transfer.listJobs(tenantId, kind, req), req);
      return { ...page, items: page.items.map(view) };
    },
    cancel,
    async results(tenantId: string, id: string, req: PageRequest) {
      await find(tenantId, 'IMPORT', id);
      const page = pageFrom(await store.transfer.listResults(id, req), req);
      return { ...page, items: page.items.map(({ jobId: _j, ...r }) => ({ ...r, position: Number(r.position) })) };
    },
    /** The export job, for its records and download: its snapshot once it SUCCEEDED, nothing otherwise. */
    async exportSnapshot(tenantId: string, id: string): Promise<{ tenantId: string; asOf: string } | null> {
      const job = await find(tenantId, 'EXPORT', id);
      return job.status === 'SUCCEEDED' ? { tenantId, asOf: job.snapshotAt! } : null;
    },
    async exportRecords(tenantId: string, id: string, req: PageRequest): Promise<Page<ExportRecord>> {
      const job = await find(tenantId, 'EXPORT', id);
      if (job.status !== 'SUCCEEDED') return { items: [], page: req.page, size: req.size, hasMore: false };
      const offset = req.page * req.size;
      const rows = await store.transfer.exportPage(tenantId, job.snapshotAt!, req.size + 1, offset);
      const page = pageFrom(rows, req);
      return { ...page, items: page.items.map((u, i) => ({ position: offset + i, subject: u.subject, email: u.email, emailVerified: u.emailVerified, status: u.status, createdAt: u.createdAt })) };
    },

    /**
     * Runs every job not finished now, in this process, oldest first, a RUNNING one (whose runner
     * died) before QUEUED ones, whatever the work items' leases say: for tests and for running a
     * queue out by hand. The conditional writes keep it right beside the worker (`runWork`).
     */
    async runPending(): Promise<void> {
      for (;;) {
        const job = await store.transfer.nextJob();
        if (!job) return;
        await runJob(job);
      }
    },

    /**
     * The work item of one job (kind users.transfer, ./work.ts), under the worker's lease: runs
     * the job unless it has ended, resuming a RUNNING one from its last committed record.
     */
    async runWork(w: TransferWork, lease: Lease): Promise<void> {
      const job = await store.transfer.findJob(w.tenantId, w.kind, w.jobId);
      if (job && (job.status === 'QUEUED' || job.status === 'RUNNING')) await runJob(job, lease);
    },
  };
}

export type TransferJobs = ReturnType<typeof createTransferJobs>;

/** The work kind of user transfer jobs (platform/work, declared in ./work.ts): one item per job. */
export const TRANSFER_WORK = 'users.transfer';

/** A transfer job's work item: which job, by id. */
export interface TransferWork {
  tenantId: string;
  kind: Kind;
  jobId: string;
}
