import type { WorkKind } from '../../platform/work/queue';
import { TRANSFER_WORK, type TransferJobs, type TransferWork } from './jobs';

/**
 * The work kinds of user transfer (platform/work; registered in src/work.ts). One item per
 * import or export job, written with the job: the worker runs it under the item's lease,
 * renewed with each committed chunk, so after `kill -9` another process (or the restarted one)
 * takes the job over once the lease lapses and resumes from its last committed record. A job
 * that fails ends FAILED (jobs.ts), so the item itself is retried only when the worker could not
 * run it at all (the database unavailable).
 */
export const transferWork = (jobs: Pick<TransferJobs, 'runWork'>): WorkKind<TransferWork> => ({
  kind: TRANSFER_WORK,
  retry: { baseMs: 5_000, capMs: 5 * 60_000, maxAttempts: 20 },
  run: (w, item) => jobs.runWork(w, item.lease),
});
