import type { Clock } from '../clock';
import { newId } from '../crypto';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { TxRunner, TxScope } from '../store/store';
import type { RetryPolicy } from './retry';
import type { WorkItemRow, WorkStore } from './store';
import { createWorker, type Lease, type WorkOutcome } from './worker';

/**
 * A kind of work on the work_items table (platform/work, issue 22 point 2). A context declares
 * its kinds in its own folder (`<context>/work.ts`); src/work.ts registers them all in one place.
 * The payload names what the work is about by id: personal data stays in the owner's tables.
 */
export interface WorkKind<P = unknown> {
  kind: string;
  retry: RetryPolicy;
  /** The attempt; nothing returned means done. A throw is retried (and logged). */
  run(payload: P, item: { id: string; attempts: number; lease: Lease }): Promise<WorkOutcome | void>;
}

type Stores = { work: WorkStore };

/** Declares a kind with its payload's type (the registry holds them as `WorkKind<never>`). */
export const workKind = <P>(k: WorkKind<P>): WorkKind<P> => k;

export const WORK_QUEUE = { leaseMs: 30_000, batch: 20, concurrency: 8 } as const;

/**
 * Writes a work item in the caller's transaction, due at `dueMs` (default now); the caller wakes
 * the worker after commit (`tx.afterCommit(wake)`). For contexts that take the queue's wake-up
 * as a plain function (identity/transfer); others call the queue's `enqueueIn`.
 */
export async function insertWorkItemIn(tx: Stores, kind: string, payload: unknown, nowMs: number, dueMs = nowMs): Promise<string> {
  const id = newId();
  await tx.work.insert({ id, kind, payload: JSON.stringify(payload), dueMs, createdMs: nowMs });
  return id;
}

/**
 * The queue of work items: `enqueueIn(tx, kind, payload, { dueMs })` writes an item in the
 * caller's transaction and wakes the worker after commit; a due time hours away is a row until
 * then (the worker's one timer never sleeps past `idleMs`). Every process runs the worker over
 * the kinds it registered; claims are row-level, so processes share the items.
 */
export function createWorkQueue(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<Metrics, 'workItems'>;
  idleMs?: number;
  random?: () => number;
  options?: Partial<Record<keyof typeof WORK_QUEUE, number>>;
}) {
  const { store, clock } = deps;
  const o = { ...WORK_QUEUE, ...deps.options };
  const kinds = new Map<string, WorkKind<never>>();
  const names = () => [...kinds.keys()];
  const kindOf = (row: WorkItemRow) => kinds.get(row.kind)!;

  const worker = createWorker<WorkItemRow>(
    {
      name: 'work_items',
      kindOf: (row) => row.kind,
      leaseMs: o.leaseMs,
      batch: o.batch,
      concurrency: o.concurrency,
      claim: (now, until, limit) => (kinds.size === 0 ? Promise.resolve([]) : store.tx((tx) => tx.work.claim(names(), now, until, limit))),
      nextDueMs: () => (kinds.size === 0 ? Promise.resolve(undefined) : store.work.nextDueMs(names())),
      attempts: (row) => Number(row.attempts),
      retry: (row) => kindOf(row).retry,
      async attempt(row, lease) {
        const payload = JSON.parse(row.payload) as never;
        return (await kindOf(row).run(payload, { id: row.id, attempts: Number(row.attempts), lease })) ?? { kind: 'done' };
      },
      settle: (row, until, s) =>
        store.tx((tx) => (s.kind === 'done' ? tx.work.done(row.id, until) : s.kind === 'retry' ? tx.work.retry(row.id, until, s.dueMs, s.error) : tx.work.fail(row.id, until, s.error))),
      renew: (row, from, to) => store.tx((tx) => tx.work.renew(row.id, from, to)),
    },
    { clock, logger: deps.logger, metrics: deps.metrics, idleMs: deps.idleMs, random: deps.random },
  );

  /** Workers of contexts' own work tables (mail_outbox), started and stopped with the queue's. */
  const attached: { start(delayMs?: number): void; stop(): Promise<void> }[] = [];

  return {
    /** Registers a kind (src/work.ts); this process's worker claims items of registered kinds only. */
    register<P>(k: WorkKind<P>): void {
      if (kinds.has(k.kind)) throw new Error(`work kind ${k.kind} is already registered`);
      kinds.set(k.kind, k as unknown as WorkKind<never>);
    },
    kinds: names,
    /**
     * Queues an item in the caller's transaction, due at `dueMs` (default now), and wakes the
     * worker once the transaction commits. Returns the item's id.
     */
    async enqueueIn<P>(tx: Stores & TxScope, kind: WorkKind<P> | string, payload: P, at: { dueMs?: number } = {}): Promise<string> {
      const now = clock.now().getTime();
      const id = await insertWorkItemIn(tx, typeof kind === 'string' ? kind : kind.kind, payload, now, at.dueMs ?? now);
      worker.wakeAfterCommit(tx);
      return id;
    },
    /** Attempts every item due now (what the timer does; deterministic for tests). */
    runDue: worker.run,
    wake: worker.wake,
    /** Starts the worker's timer, and those of the attached workers (serve). */
    start(delayMs = 0): void {
      worker.start(delayMs);
      for (const w of attached) w.start(delayMs);
    },
    async stop(): Promise<void> {
      await Promise.all([worker.stop(), ...attached.map((w) => w.stop())]);
    },
    /** Attaches the worker of a context's own work table (mail_outbox), to start and stop it with this one. */
    attach(w: { start(delayMs?: number): void; stop(): Promise<void> }): void {
      attached.push(w);
    },
    timerDelayMs: worker.timerDelayMs,
  };
}

export type WorkQueue = ReturnType<typeof createWorkQueue>;
