import type { Database, Db } from './sqlite';

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

export interface TxRunner<S> {
  /**
   * Runs `fn` in one transaction on the write connection and hands it the stores bound to
   * that connection. A throw rolls back every write. Database work only inside: hash,
   * sign and send before or after (DESIGN.md "Storage").
   */
  tx<T>(fn: (stores: S) => Promise<T> | T): Promise<T>;
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
};

/**
 * Builds the application store from a binder that creates every context's stores on a
 * connection: reads outside transactions go to the read connection.
 */
export function createStore<S extends object>(db: Database, bind: (conn: Db) => S): StoreOf<S> {
  const lock = new AsyncLock();
  const readStores = bind(db.read);
  const writeStores = bind(db.write);
  const raw = db.write.$client;
  const reader = db.read.$client;

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

  const tx = async <T>(fn: (stores: S) => Promise<T> | T): Promise<T> => {
    const release = await lock.acquire();
    try {
      raw.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(writeStores);
        raw.exec('COMMIT');
        endShared();
        return result;
      } catch (e) {
        if (raw.inTransaction) raw.exec('ROLLBACK');
        throw e;
      }
    } finally {
      release();
    }
  };
  const readSnapshot = () => (sharing ? snapshot : undefined);
  return Object.assign(Object.create(null) as object, readStores, { tx, db, shareReadsThisTurn, readSnapshot }) as StoreOf<S>;
}
