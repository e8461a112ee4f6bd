import type { Clock } from '../clock';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { mayRetry, retryDelayMs, type RetryPolicy } from './retry';
import { createWaker } from './waker';

/** What one attempt at a work item came to. */
export type WorkOutcome =
  | { kind: 'done' }
  /** Try again later, not before `retryAfterMs` (the remote side's Retry-After) when given. */
  | { kind: 'retry'; error: string; retryAfterMs?: number }
  /** Permanent: the item is given up at once. */
  | { kind: 'failed'; error: string };

/** What the worker records for an attempted item: its outcome, with the retry's due time decided. */
export type Settlement = { kind: 'done' } | { kind: 'retry'; dueMs: number; error: string } | { kind: 'failed'; error: string };

/** The claim an attempt runs under: its lease lapses at `untilMs` unless renewed. */
export interface Lease {
  readonly untilMs: number;
  /** Extends the lease by the source's lease time; false when it was lost (lapsed and taken over). */
  renew(): Promise<boolean>;
}

/**
 * A table of work items seen by the worker: the work_items table of platform/work (queue.ts),
 * or a context's own table whose rows are its work (mail_outbox). Claims and settlements are
 * conditional on the lease (the due time the claim wrote), so a worker whose lease lapsed and
 * was taken over writes nothing.
 */
export interface WorkSource<I> {
  /** The metrics label (`kind`) of the source's items. */
  name: string;
  /** An item's own kind, when a source holds several (work_items): the label instead of `name`. */
  kindOf?(item: I): string;
  leaseMs: number;
  /** Rows per claim. */
  batch: number;
  /** Attempts run at once in this process. */
  concurrency: number;
  claim(nowMs: number, leaseUntilMs: number, limit: number): Promise<I[]>;
  /** The earliest due time among the claimable rows (or undefined): the one timer's deadline. */
  nextDueMs(): Promise<number | undefined>;
  /** The item's attempts, this one included (the claim counted it). */
  attempts(item: I): number;
  retry(item: I): RetryPolicy;
  attempt(item: I, lease: Lease): Promise<WorkOutcome>;
  /** Records the outcome, conditional on the lease still being `leaseUntilMs`. False: lost. */
  settle(item: I, leaseUntilMs: number, s: Settlement): Promise<boolean>;
  /** Moves the lease from `fromMs` to `toMs`; false when lost. */
  renew(item: I, fromMs: number, toMs: number): Promise<boolean>;
}

export interface WorkerOptions {
  clock: Clock;
  logger: Logger;
  metrics?: Pick<Metrics, 'workItems'>;
  /**
   * The longest the one timer sleeps: work enqueued by another process (whose wake-up is in that
   * process) is found within it. Items due later cost nothing until then.
   */
  idleMs?: number;
  random?: () => number;
}

/**
 * The worker of one work source (platform/work, issue 22 point 2): `run` claims due rows in
 * batches and attempts them with bounded concurrency until nothing is due; outcomes become done,
 * a retry with backoff and jitter (never before a Retry-After), or given up after the policy's
 * attempts. Every process runs its own worker: claims are row-level, so they share the work.
 * Woken after commit (`wakeAfterCommit(tx)`), and otherwise by ONE timer armed at the earliest
 * due time (at most `idleMs` away), however many items wait and however far away they are due.
 */
export function createWorker<I>(source: WorkSource<I>, opts: WorkerOptions) {
  const { clock, logger } = opts;
  const random = opts.random ?? Math.random;
  const nowMs = () => clock.now().getTime();
  const count = (item: I, outcome: string) => opts.metrics?.workItems.inc({ kind: source.kindOf?.(item) ?? source.name, outcome });

  function settlementOf(item: I, o: WorkOutcome, at: number): Settlement {
    if (o.kind !== 'retry') return o;
    const attempts = source.attempts(item);
    const policy = source.retry(item);
    if (!mayRetry(policy, attempts)) return { kind: 'failed', error: `${o.error}; gave up after ${attempts} attempts` };
    return { kind: 'retry', dueMs: at + retryDelayMs(policy, attempts, o.retryAfterMs, random), error: o.error };
  }

  async function one(item: I, untilMs: number): Promise<void> {
    let until = untilMs;
    const lease: Lease = {
      get untilMs() {
        return until;
      },
      async renew() {
        const next = nowMs() + source.leaseMs;
        if (!(await source.renew(item, until, next))) return false;
        until = next;
        return true;
      },
    };
    let outcome: WorkOutcome;
    try {
      outcome = await source.attempt(item, lease);
    } catch (e) {
      logger.error('work item attempt failed', { kind: source.name, err: e });
      outcome = { kind: 'retry', error: `internal: ${(e as Error).message}` };
    }
    const s = settlementOf(item, outcome, nowMs());
    try {
      if (await source.settle(item, until, s)) count(item, s.kind);
      else {
        count(item, 'lost');
        logger.warn('work item lease lost before its outcome was recorded', { kind: source.name });
      }
    } catch (e) {
      // Not recorded: the item is due again once its lease lapses (at-least-once).
      logger.error('work item outcome not recorded', { kind: source.name, err: e });
    }
  }

  const waker = createWaker({ name: source.name, clock, logger, idleMs: opts.idleMs, drain, nextDueMs: () => source.nextDueMs() });

  async function drain(): Promise<void> {
    for (;;) {
      waker.takeWake();
      const now = nowMs();
      const until = now + source.leaseMs;
      const items = await source.claim(now, until, source.batch);
      const queue = [...items];
      const lanes = Array.from({ length: Math.min(source.concurrency, queue.length) }, async () => {
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) await one(item, until);
      });
      await Promise.all(lanes);
      if (items.length < source.batch && !waker.takeWake()) return;
    }
  }

  return {
    /** Attempts everything due now; resolves once nothing is due and every outcome is recorded. */
    run: waker.run,
    /** Work was committed: look at once (here; other processes find it within `idleMs`). */
    wake: waker.wake,
    wakeAfterCommit: waker.wakeAfterCommit,
    start: waker.start,
    timerDelayMs: waker.timerDelayMs,
    stop: waker.stop,
  };
}

export type Worker = ReturnType<typeof createWorker>;
