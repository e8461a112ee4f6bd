import type { Database, Db } from './db';

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

export type StoreOf<S> = S & TxRunner<S> & { db: Database };

/**
 * Builds the application store from a binder that creates every context's stores on a
 * connection: reads outside transactions go to the read connection.
 */
export function createStore<S extends object>(db: Database, bind: (conn: Db) => S): StoreOf<S> {
  const lock = new AsyncLock();
  const readStores = bind(db.read);
  const writeStores = bind(db.write);
  const raw = db.write.$client;
  const tx = async <T>(fn: (stores: S) => Promise<T> | T): Promise<T> => {
    const release = await lock.acquire();
    try {
      raw.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(writeStores);
        raw.exec('COMMIT');
        return result;
      } catch (e) {
        if (raw.inTransaction) raw.exec('ROLLBACK');
        throw e;
      }
    } finally {
      release();
    }
  };
  return Object.assign(Object.create(null) as object, readStores, { tx, db }) as StoreOf<S>;
}
