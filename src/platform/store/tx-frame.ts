import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Composable transactions (store.ts `TxRunner.tx`): the transaction in progress travels with the
 * async calls made inside it (AsyncLocalStorage), so a service that opens a transaction can be
 * called from inside another service's transaction and joins it, as a savepoint, on both engines.
 */

/** A FIFO async mutex. */
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

/** PostgreSQL's isolation levels, weakest first (store.ts `TxOptions`). */
export type Isolation = 'read committed' | 'repeatable read' | 'serializable';
const STRENGTH: Readonly<Record<Isolation, number>> = { 'read committed': 0, 'repeatable read': 1, serializable: 2 };

/** What a frame needs of the transaction's scope (store.ts `TxScope`). */
export interface Savepoints {
  savepoint<T>(fn: () => Promise<T> | T): Promise<T>;
}

/** A nested transaction used in a way that cannot be honoured: a programming error, said at once. */
export class NestedTransactionMisuse extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NestedTransactionMisuse';
  }
}

/**
 * One level of a transaction in progress: the outer transaction, or a nested call joined to it.
 * Open while its callback runs; calls nested directly in it take turns (a savepoint at a time).
 */
export class TxFrame<S extends Savepoints> {
  open = true;
  /** Nested calls queued or running. */
  private nested = 0;
  private readonly turns = new AsyncLock();

  constructor(
    /** The store whose transaction this is: a transaction of another store is never joined. */
    readonly owner: object,
    readonly scope: S,
    /** What the transaction guarantees (SQLite: serializable, its writer is alone). */
    readonly isolation: Isolation,
  ) {}

  /**
   * Ends the frame once its callback has settled. Undefined when nothing nested in it is still
   * queued or running; else a promise resolved when those have finished (the transaction must
   * not end under them), and the caller fails the transaction: they were not awaited.
   */
  close(): Promise<void> | undefined {
    this.open = false;
    if (this.nested === 0) return undefined;
    return this.turns.acquire().then((release) => release());
  }

  /** Runs `fn` as a nested call in this frame: in turn, in a savepoint, in a frame of its own. */
  async join<T>(fn: (scope: S) => Promise<T> | T, isolation: Isolation | undefined): Promise<T> {
    if (isolation !== undefined && STRENGTH[isolation] > STRENGTH[this.isolation]) {
      throw new NestedTransactionMisuse(`a transaction nested in a ${this.isolation} one cannot run at isolation level ${isolation}: ask for it on the outer transaction`);
    }
    this.nested++;
    const release = await this.turns.acquire();
    try {
      if (!this.open) throw new NestedTransactionMisuse(notAwaited);
      const inner = new TxFrame(this.owner, this.scope, this.isolation);
      return await this.scope.savepoint(() => runFrame(inner, fn));
    } finally {
      release();
      this.nested--;
    }
  }
}

const notAwaited = 'a nested transaction was not awaited by the transaction it joined, which has ended: await every nested store.tx inside the transaction';

const current = new AsyncLocalStorage<TxFrame<Savepoints>>();

/** The open transaction of `owner` the caller runs in, which a `tx` it calls joins; or undefined. */
export function joinable<S extends Savepoints>(owner: object): TxFrame<S> | undefined {
  const frame = current.getStore();
  return frame !== undefined && frame.owner === owner && frame.open ? (frame as TxFrame<S>) : undefined;
}

/**
 * Runs `fn` in `frame`, then closes it: every call nested in it must have finished, or the
 * transaction fails (after they have, so nothing runs on its connection once it has ended).
 */
export async function runFrame<S extends Savepoints, T>(frame: TxFrame<S>, fn: (scope: S) => Promise<T> | T): Promise<T> {
  let result: T;
  try {
    result = await current.run(frame, () => fn(frame.scope));
  } catch (e) {
    await frame.close();
    throw e;
  }
  const stray = frame.close();
  if (stray) {
    await stray;
    throw new NestedTransactionMisuse(notAwaited);
  }
  return result;
}

/**
 * Runs `fn` outside any transaction: what it starts, however late, opens transactions of its
 * own. For after-commit hooks and for work a transaction's callback schedules (a timer, a queue
 * flushed on the next turn): AsyncLocalStorage hands the transaction to every callback created
 * inside it, and a transaction still open when such a callback runs would be joined.
 */
export function outsideTransaction<T>(fn: () => T): T {
  return current.exit(fn);
}
