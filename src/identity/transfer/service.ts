import type { Clock } from '../../platform/clock';
import type { Sealer } from '../../platform/crypto';
import type { AuditActor } from '../../platform/audit/audit';
import type { AuditStore } from '../../platform/audit/store';
import type { Logger } from '../../platform/logger';
import type { TxRunner } from '../../platform/store/store';
import type { WorkStore } from '../../platform/work/store';
import { exportNdjson } from './export';
import { createImporter, type ImporterDeps, type ProviderDirectory } from './importer';
import { createTransferJobs } from './jobs';
import type { TransferStore } from './store';

type Stores = { transfer: TransferStore; audit: AuditStore; work: WorkStore };

/** Summary of one CLI import or export run, recorded as its audit event's details. */
export interface RunSummary {
  source?: string;
  mode?: string;
  processed: number;
  succeeded: number;
  failed: number;
  skipped?: number;
  /** The CLI's --from format. */
  from?: string;
}

/**
 * Bulk user transfer (issue 12): the importer shared by the CLI and the API's jobs, the jobs
 * themselves, and exports as NDJSON streams.
 */
export function createTransferService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  logger: Logger;
  users: ImporterDeps['users'];
  mfa: ImporterDeps['mfa'];
  providers: ProviderDirectory;
  /** Wakes the work queue's worker (after commit). */
  wake: () => void;
}) {
  const importer = createImporter(deps);
  const jobs = createTransferJobs({ ...deps, importer });
  return {
    importer,
    jobs,
    /** A tenant's users as NDJSON, as of now (the CLI's `users export`). */
    exportAll(tenantId: string, asOf = deps.clock.now().toISOString()): AsyncGenerator<string> {
      return exportNdjson(deps.store.transfer, tenantId, asOf);
    },
    /** The download of a SUCCEEDED export job; empty before and after cancellation. */
    async download(tenantId: string, jobId: string): Promise<AsyncGenerator<string>> {
      const snap = await jobs.exportSnapshot(tenantId, jobId);
      return snap ? exportNdjson(deps.store.transfer, tenantId, snap.asOf) : (async function* () {})();
    },
    /** A CLI bulk import's write pattern on (fewer WAL checkpoints on SQLite), or back to normal. */
    async bulkWrites(on: boolean): Promise<void> {
      await deps.store.tx((tx) => tx.transfer.bulkWrites(on));
    },
    /** One audit event per CLI run (contracts §1): `users.imported` / `users.exported`. */
    async recordRun(actor: AuditActor, tenantId: string, action: 'users.imported' | 'users.exported', summary: RunSummary): Promise<void> {
      await deps.store.tx((tx) => tx.audit.record(actor, { tenantId, action, targetType: 'tenant', targetId: tenantId, details: { ...summary }, at: deps.clock.now() }).then(() => undefined));
    },
  };
}

export type TransferService = ReturnType<typeof createTransferService>;
