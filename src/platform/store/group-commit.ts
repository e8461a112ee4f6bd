import { isRetryable, TransactionAborted, type TxRunner, type TxScope } from './store';
import { outsideTransaction } from './tx-frame';

/**
 * Group commit: items that arrive in the same turn of the event loop are processed one after
 * the other in one transaction, and each answers only after that shared commit (DESIGN.md
 * "Durability promise"). On a busy server the commit, not the work, dominates a lone item, so
 * sharing it multiplies throughput; items inside one group still behave as if sequential
 * (replays and duplicates between them included), because they are.
 *
 * Failure isolation: each item runs inside its own SAVEPOINT. An item that throws (a checked
 * error, or anything unexpected: a stack overflow while storing, a constraint) has only its
 * own writes and after-commit hooks undone, and only its caller gets the error; the others
 * commit and answer. Only a failure of the transaction itself (COMMIT, or an error after which
 * SQLite rolled the whole transaction back) fails every item of the group. An item chosen as a
 * deadlock's victim (PostgreSQL 40P01, or a serialization failure) is undone the same way and
 * runs again in a later group, up to RERUNS times, as a transaction of its own would.
 *
 * Called inside a transaction of the store (an item's own work included), an item does not
 * wait for the next group, which could only start after that transaction (a deadlock): it
 * runs at once in that transaction, as a nested `tx` (store.ts), and commits with it.
 */
/** How many times an item that lost a deadlock runs again before its caller gets the error. */
const RERUNS = 3;

export function createGroupCommit<S, I, O>(
  store: TxRunner<S>,
  work: (tx: S & TxScope, item: I) => O | Promise<O>,
  /**
   * The order items of a group run in, by a key (a stable sort: items of one key keep their
   * arrival order). Items that lock rows run in key order, so two processes' groups take
   * those locks in one order and cannot deadlock each other (PostgreSQL).
   */
  lockOrder?: (item: I) => string,
): (item: I) => Promise<O> {
  type Pending = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void; reruns?: number };
  type Outcome = { ok: true; value: O } | { ok: false; error: unknown };
  let queued: Pending[] = [];

  async function flush(): Promise<void> {
    const group = queued;
    queued = [];
    if (lockOrder) group.sort((a, b) => (lockOrder(a.item) < lockOrder(b.item) ? -1 : lockOrder(a.item) > lockOrder(b.item) ? 1 : 0));
    const outcomes: Outcome[] = new Array(group.length);
    try {
      await store.tx(async (tx) => {
        for (let i = 0; i < group.length; i++) {
          try {
            outcomes[i] = { ok: true, value: await tx.savepoint(() => work(tx, group[i].item)) };
          } catch (e) {
            if (e instanceof TransactionAborted) throw e;
            outcomes[i] = { ok: false, error: e };
          }
        }
      });
    } catch (e) {
      // Nothing of the group committed.
      for (const p of group) p.reject(e instanceof TransactionAborted ? e.cause : e);
      return;
    }
    for (let i = 0; i < group.length; i++) {
      const o = outcomes[i];
      const p = group[i];
      if (o.ok) p.resolve(o.value);
      else if (isRetryable(o.error) && (p.reruns ?? 0) < RERUNS) queued.push({ ...p, reruns: (p.reruns ?? 0) + 1 });
      else p.reject(o.error);
    }
  }

  // One group at a time: while a group commits, the next one gathers (on PostgreSQL, where
  // transactions are not serialized in-process, this keeps groups in order as on SQLite).
  let scheduled = false;
  let flushing = false;
  const kick = () => {
    if (scheduled || flushing || queued.length === 0) return;
    scheduled = true;
    // The flush runs outside whatever transaction the first item came from (its context would
    // otherwise reach the flush's `tx`).
    setImmediate(outsideTransaction, () => {
      scheduled = false;
      flushing = true;
      void flush().finally(() => {
        flushing = false;
        kick();
      });
    });
  };

  return (item: I) =>
    store.inTransaction()
      ? store.tx((tx) => work(tx, item))
      : new Promise<O>((resolve, reject) => {
          queued.push({ item, resolve, reject });
          kick();
        });
}
