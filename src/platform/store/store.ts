import type { Logger } from '../logger';
import { BUSY_TIMEOUT_MS, type Database, type Db } from './sqlite';

/**
 * A FIFO async mutex. SQLite has one writer; serializing `tx` callers in-process keeps
 * BEGIN IMMEDIATE from ever waiting on ourselves and keeps async callbacks from interleaving.
 */
export class AsyncLock {
  private tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.tail;
    this.tail = prev.then(() => next);
    return prev.then(() => release);
  }
}

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

export interface TxRunner<S> {
  /**
   * Runs `fn` in one transaction on the write connection and hands it the stores bound to
   * that connection. A throw rolls back every write. Database work only inside: hash,
   * sign and send before or after (DESIGN.md "Storage"), or in an `afterCommit` hook.
   */
  tx<T>(fn: (stores: S & TxScope) => Promise<T> | T): Promise<T>;
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

export type StoreOf<S> = S & TxRunner<S> & {
  db: Database;
  /**
   * Lets the reads of the current event-loop turn share one read transaction (see
   * `createStore`). Called once per HTTP request; harmless anywhere else.
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
};

/**
 * Builds the application store from a binder that creates every context's stores on a
 * connection: reads outside transactions go to the read connection.
 */
export function createStore<S extends object>(db: Database, bind: (conn: Db) => S, logger: Logger): StoreOf<S> {
  const lock = new AsyncLock();
  const readStores = bind(db.read);
  const raw = db.write.$client;
  const reader = db.read.$client;

  // The hooks of the transaction in progress (the lock allows one at a time), and how deep
  // its savepoints are nested.
  let hooks: (() => unknown)[] | undefined;
  let depth = 0;
  const afterCommit = (fn: () => unknown) => {
    if (!hooks) throw new Error('afterCommit outside a transaction');
    hooks.push(fn);
  };
  const savepoint = async <T>(fn: () => Promise<T> | T): Promise<T> => {
    if (!hooks || !raw.inTransaction) throw new Error('savepoint outside a transaction');
    const name = `sp${++depth}`;
    const hooksBefore = hooks.length;
    raw.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      raw.exec(`RELEASE ${name}`);
      return result;
    } catch (e) {
      if (!raw.inTransaction) throw new TransactionAborted(e);
      // ROLLBACK TO undoes the writes but keeps the savepoint open; RELEASE closes it.
      raw.exec(`ROLLBACK TO ${name}`);
      raw.exec(`RELEASE ${name}`);
      hooks.length = hooksBefore;
      throw e;
    } finally {
      depth--;
    }
  };
  const runHooks = (fns: (() => unknown)[]) => {
    for (const fn of fns) {
      try {
        const r = fn();
        if (r instanceof Promise) r.catch((e: unknown) => logger.error('after-commit hook failed', { err: e }));
      } catch (e) {
        logger.error('after-commit hook failed', { err: e });
      }
    }
  };
  const writeStores: S & TxScope = Object.assign(Object.create(null) as object, bind(db.write), { afterCommit, savepoint }) as S & TxScope;

  // Under WAL every read statement outside a transaction takes and drops a shared lock on
  // the -shm file (fcntl system calls): most of the cost of a primary-key lookup on a busy
  // server. Reads of one event-loop turn instead share a read transaction that ends when the
  // turn does, or at once when this process commits, so a request always sees its own writes
  // and everything committed before its turn began (other processes' commits from the next).
  let sharing = false;
  let snapshot = 0;
  const endShared = () => {
    if (!sharing) return;
    try {
      if (reader.inTransaction) reader.exec('COMMIT');
      sharing = false;
    } catch {
      // A statement still open on the read connection (a streaming iterator) keeps the
      // snapshot; try again next turn rather than fail whatever ran in this one.
      setImmediate(endShared);
    }
  };
  const shareReadsThisTurn = () => {
    if (sharing) return;
    reader.exec('BEGIN'); // deferred: the lock is taken by the first read, once
    sharing = true;
    snapshot++;
    setImmediate(endShared);
  };

  const tx = async <T>(fn: (stores: S & TxScope) => Promise<T> | T): Promise<T> => {
    const release = await lock.acquire();
    const committed: (() => unknown)[] = [];
    let result: T;
    try {
      raw.exec('BEGIN IMMEDIATE');
      hooks = committed;
      depth = 0;
      try {
        result = await fn(writeStores);
        hooks = undefined;
        raw.exec('COMMIT');
      } catch (e) {
        hooks = undefined;
        committed.length = 0;
        if (raw.inTransaction) raw.exec('ROLLBACK');
        throw e;
      }
      endShared();
    } finally {
      release();
    }
    // Outside the lock, so a hook may start a transaction of its own.
    if (committed.length > 0) runHooks(committed);
    return result;
  };
  const readSnapshot = () => (sharing ? snapshot : undefined);

  const scrubDeleted = async (): Promise<'done' | 'busy'> => {
    const release = await lock.acquire();
    try {
      // Our own shared read snapshot would hold the WAL back; end it first.
      endShared();
      // No busy wait: TRUNCATE holds the write lock while it waits for readers, which would
      // stall this event loop and every other process's writers. Report busy and retry.
      raw.pragma('busy_timeout = 0');
      try {
        const [row] = raw.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
        return row.busy === 0 ? 'done' : 'busy';
      } finally {
        raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    } finally {
      release();
    }
  };
  return Object.assign(Object.create(null) as object, readStores, { tx, db, shareReadsThisTurn, readSnapshot, scrubDeleted }) as StoreOf<S>;
}
