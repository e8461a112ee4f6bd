import { createGroupCommit } from '../../platform/store/group-commit';
import type { Dialect } from '../../platform/store/sql';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { workKind } from '../../platform/work/queue';
import type { AutomationEngine } from './engine';

/** The durable work item of a batch's events for automations (issue 28): written in the ingest transaction. */
export const AUTOMATION_EVENTS_WORK = 'engage.automation.events';

export interface AutomationEventsWork {
  environmentId: string;
  profileId: string;
  events: { name: string; properties: Record<string, unknown> }[];
}

/** Acts on the events once their batch committed, in any process (src/work.ts registers it); its id makes a second run change nothing more. */
export const automationEventsWork = (engine: Pick<AutomationEngine, 'onEvents'>) =>
  workKind<AutomationEventsWork>({
    kind: AUTOMATION_EVENTS_WORK,
    retry: { baseMs: 1_000, capMs: 60_000, maxAttempts: 20 },
    run: (p, item) => engine.onEvents(p.environmentId, p.profileId, p.events, item.id),
  });

/**
 * How automations commit a trigger's run and an engine step (issue 28 "Performance"): on SQLite,
 * whose one writer serializes every transaction of the process anyway, the transactions that
 * arrive in one turn of the event loop share one commit (platform/store/group-commit.ts), each in
 * its own SAVEPOINT: a throw (a refused re-entry, a lost lease, a refused step) undoes that one's
 * writes and after-commit hooks only and reaches its caller alone, and every caller is answered
 * after the shared COMMIT. On PostgreSQL each is its own transaction, on its own connection of the
 * pool (grouping would put them one after the other on one connection: each statement a round trip).
 * `lockOrder` orders a group's items (rows they lock, as group-commit.ts asks).
 */
export function automationCommitter<S>(store: TxRunner<S>, dialect: Dialect, lockOrder: (key: string) => string = (k) => k) {
  type Job = { key: string; run: (tx: S & TxScope) => Promise<unknown> };
  const grouped = dialect === 'sqlite' ? createGroupCommit(store, (tx: S & TxScope, job: Job) => job.run(tx), (job) => lockOrder(job.key)) : undefined;
  return <T>(key: string, run: (tx: S & TxScope) => Promise<T>): Promise<T> => (grouped ? (grouped({ key, run }) as Promise<T>) : store.tx(run));
}
