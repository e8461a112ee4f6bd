import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { Dialect } from './sql';
import { outsideTransaction, type Isolation } from './tx-frame';

/** The transaction timings an engine records (platform/metrics.ts). */
export type TxMetrics = Pick<Metrics, 'txWait' | 'txDuration' | 'txRetries'>;

/**
 * The store port (DESIGN.md "Storage"): every context's stores (each written once against
 * `Sql`, sql.ts), transactions, and what the engine offers besides. Two engines implement it:
 * SQLite (sqlite-store.ts) and PostgreSQL (postgres-store.ts).
 */

/** What a transaction offers besides the stores bound to it. */
export interface TxScope {
  /**
   * Runs `fn` once the transaction has committed, never after a rollback (nor when the
   * savepoint that registered it was rolled back). The place to wake a worker or send what
   * the transaction enqueued (DESIGN.md "Storage", outbox). A throw or a rejection of `fn`
   * is logged: the caller's transaction has committed and its answer stands.
   */
  afterCommit(fn: () => unknown): void;
  /**
   * Runs `fn` inside a SAVEPOINT: if it throws, only its writes (and its after-commit hooks)
   * are undone and the error is rethrown; the enclosing transaction goes on. Used by the
   * group commit (group-commit.ts) so one item's failure never fails another.
   */
  savepoint<T>(fn: () => Promise<T> | T): Promise<T>;
}

/** How a transaction runs; every field optional, the defaults suit nearly every caller. */
export interface TxOptions {
  /**
   * PostgreSQL's isolation level, READ COMMITTED by default: conditional writes and row locks
   * (sql.ts) are how stores state their guarantees. SERIALIZABLE for a transaction whose
   * reads decide its writes in ways a row lock cannot cover. SQLite ignores it: its single
   * writer is serializable already.
   */
  isolation?: Isolation;
}

export interface TxRunner<S> {
  /**
   * Runs `fn` in one transaction on the write connection and hands it the stores bound to
   * that connection. A throw rolls back every write. Database work only inside: hash,
   * sign and send before or after (DESIGN.md "Storage"), or in an `afterCommit` hook.
   * On PostgreSQL `fn` runs again (a bounded number of times) when the database aborts the
   * transaction for a serialization failure or a deadlock, so it must not act outside it.
   *
   * Nested (composable transactions, tx-frame.ts): called inside a transaction of the same
   * store, by its callback or anything that callback awaits, `tx` joins that transaction rather
   * than opening another (which would wait for the outer one's lock forever on SQLite). The
   * nested `fn` runs in a SAVEPOINT with the same stores: a throw undoes its writes and its
   * after-commit hooks and reaches the caller, which may catch it and go on (the outer
   * transaction keeps its own writes) or let it roll back the whole transaction. Nothing
   * commits before the outer transaction does, and its hooks run after that commit. Nested
   * calls must be awaited inside the transaction (one the outer `fn` did not await fails it);
   * calls nested together take turns; a nested call cannot ask for a stronger isolation level
   * than the outer transaction has. What only starts inside a transaction (after-commit hooks,
   * timers, a group commit's next flush) runs outside it and opens transactions of its own
   * (`outsideTransaction`).
   */
  tx<T>(fn: (stores: S & TxScope) => Promise<T> | T, options?: TxOptions): Promise<T>;
  /**
   * Runs `fn`, which calls one store method written as a single statement on PostgreSQL (a
   * conditional UPDATE, a data-modifying WITH): atomic by itself there, so it runs in
   * autocommit on any connection of the pool, without the round trips of BEGIN and COMMIT,
   * and again (a bounded number of times) on a deadlock. On SQLite it is a transaction, in which
   * the method may take several statements. For the hottest writes (token rotation, code
   * exchange); anything else is a `tx`. Inside a transaction of the same store it joins it,
   * as a nested `tx` does.
   */
  write<T>(fn: (stores: S) => Promise<T>): Promise<T>;
  /** Whether the caller runs inside a transaction of this store, which `tx` and `write` would join. */
  inTransaction(): boolean;
}

/**
 * Thrown by `savepoint` when the failure took the whole transaction with it (SQLite rolls
 * back the transaction itself on some errors: disk full, I/O error, out of memory). Nothing
 * of the transaction survives, so nobody sharing it may be told their writes committed.
 */
export class TransactionAborted extends Error {
  constructor(cause: unknown) {
    super('the transaction was rolled back by the database', { cause });
    this.name = 'TransactionAborted';
  }
}

export type StoreOf<S> = S & TxRunner<S> & StoreEngine;

/** What the application store offers besides its contexts' stores, on either engine. */
export interface StoreEngine {
  readonly dialect: Dialect;
  /**
   * Lets the reads of the current event-loop turn share one read transaction (SQLite,
   * sqlite-store.ts; nothing on PostgreSQL). Called once per HTTP request; harmless anywhere else.
   */
  shareReadsThisTurn(): void;
  /**
   * Identifies the read transaction this turn shares, or undefined when reads are not being
   * shared: two reads that see the same value saw the same committed state.
   */
  readSnapshot(): number | undefined;
  /**
   * Makes rows deleted so far unrecoverable from the database files: with `secure_delete`
   * (sqlite.ts) the pages holding them are already zeroed, but older images of those pages
   * stay in the WAL until it is overwritten. This checkpoints the whole WAL into the database
   * and truncates it (`wal_checkpoint(TRUNCATE)`), without waiting: 'busy' when another
   * connection is checkpointing or still reads an older snapshot (try again later).
   */
  scrubDeleted(): Promise<'done' | 'busy'>;
  /**
   * A named version channel's version (platform/store/version-channels.ts): it moves with every
   * committed change to what the channel versions, by this process or any other. Synchronous
   * and cheap, read on every request: SQLite reads the row once per shared read snapshot
   * (`catalog`, `token_state` and `directory` in one statement); PostgreSQL keeps a counter per
   * channel moved by notifications. Only ever compare a value with another of the same channel
   * from the same store.
   */
  version(channel: string): number;
  /** For /readyz: the database answers and every migration is applied. */
  readiness(): Promise<'ready' | 'migrations pending' | 'database unavailable'>;
  /** Closes every connection; the store is unusable afterwards. */
  close(): Promise<void>;
}

/**
 * Runs a committed transaction's after-commit hooks, in order, on either engine: a throw or a
 * rejection is logged, never handed to the caller, whose transaction has committed.
 */
export function runAfterCommitHooks(fns: readonly (() => unknown)[], logger: Logger): void {
  // Outside the committed transaction's context: what a hook starts opens transactions of its own.
  outsideTransaction(() => {
    for (const fn of fns) {
      try {
        const r = fn();
        if (r instanceof Promise) r.catch((e: unknown) => logger.error('after-commit hook failed', { err: e }));
      } catch (e) {
        logger.error('after-commit hook failed', { err: e });
      }
    }
  });
}

/** serialization_failure and deadlock_detected (PostgreSQL): the transaction may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);

export function isRetryable(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    if (RETRYABLE.has((c as { code?: string }).code ?? '')) return true;
  }
  return false;
}
