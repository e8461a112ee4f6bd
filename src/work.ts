import type { WorkKind, WorkQueue } from './platform/work/queue';
import type { TransferJobs } from './identity/transfer/jobs';
import { transferWork } from './identity/transfer/work';
import { environmentDeletionWork } from './engage/environments/deletion';
import type { EnvironmentDeletion } from './engage/environments/deletion';
import { flagScheduleWork, type FlagSchedules } from './engage/flags/schedules';
import { automationEventsWork } from './engage/automations/work';
import type { AutomationEngine } from './engage/automations/engine';

/** What the kinds need of the services (named here, so services.ts can import this file). */
export interface WorkServices {
  transfer: { jobs: Pick<TransferJobs, 'runWork'> };
  /** An engagement environment's deletion (issue 24 point 1). */
  environmentDeletion: Pick<EnvironmentDeletion, 'run'>;
  /** A scheduled flag change (issue 26). */
  flagSchedules: Pick<FlagSchedules, 'apply'>;
  /** A batch's events for automations (issue 28). */
  automationEvents: Pick<AutomationEngine, 'onEvents'>;
}

/**
 * The kinds of durable work (platform/work, issue 22 point 2), registered in this one place.
 * Each context declares its own kinds in its folder (`<context>/work.ts`: the kind's name, its
 * retry policy and its run), and this list names them; a serving process's worker claims items
 * of these kinds only. (The mail outbox and push deliveries are work tables of their own, run by
 * the same worker code over their tables: platform/mail, engage/messaging.)
 */
export function workKinds(s: WorkServices): WorkKind<never>[] {
  return [transferWork(s.transfer.jobs), environmentDeletionWork(s.environmentDeletion), flagScheduleWork(s.flagSchedules), automationEventsWork(s.automationEvents)] as unknown as WorkKind<never>[];
}

export function registerWorkKinds(queue: WorkQueue, kinds: readonly WorkKind<never>[]): void {
  for (const k of kinds) queue.register(k);
}
