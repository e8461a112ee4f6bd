import type { Statement } from 'better-sqlite3';
import type { Logger } from '../logger';
import { pendingMigrations } from './migrations';
import { createSqliteSql, type Sql } from './sql';
import { BUSY_TIMEOUT_MS, type Database } from './sqlite';
import { TransactionAborted, runAfterCommitHooks, type StoreOf, type TxMetrics, type TxOptions, type TxScope } from './store';
import { AsyncLock, joinable, NestedTransactionMisuse, runFrame, TxFrame } from './tx-frame';
import { CHANNEL } from './version-channels';
const ENGINE = { engine: 'sqlite' } as const;

/**
 * The SQLite engine of the store port: builds the application store from a binder that creates
 * every context's stores on a `Sql`. Reads outside transactions go to the read connection; `tx`
 * runs on the one write connection, serialized in-process by a lock (BEGIN IMMEDIATE); a `tx`
 * nested in one joins it as a savepoint (tx-frame.ts) instead of waiting for that lock.
 */
export function createSqliteStore<S extends object>(db: Database, bind: (sql: Sql) => S, logger: Logger, metrics?: TxMetrics): StoreOf<S> {
  // One writer: serializing `tx` callers in-process keeps BEGIN IMMEDIATE from ever waiting on
  // ourselves and keeps async callbacks from interleaving.
  const lock = new AsyncLock();
  const owner = {}; // what a nested `tx` recognises its store's transaction by
  const raw = db.write.$client;
  const reader = db.read.$client;
  const readStores = bind(createSqliteSql(reader));

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
  const runHooks = (fns: (() => unknown)[]) => runAfterCommitHooks(fns, logger);
  const writeStores: S & TxScope = Object.assign(Object.create(null) as object, bind(createSqliteSql(raw)), { afterCommit, savepoint }) as S & TxScope;

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

  const tx = async <T>(fn: (stores: S & TxScope) => Promise<T> | T, options?: TxOptions): Promise<T> => {
    const joined = joinable<S & TxScope>(owner);
    if (joined) return joined.join(fn, options?.isolation);
    const asked = metrics ? performance.now() : 0;
    const release = await lock.acquire();
    const began = metrics ? performance.now() : 0;
    metrics?.txWait.observe((began - asked) / 1000, ENGINE);
    const committed: (() => unknown)[] = [];
    let result: T;
    let outcome = 'rollback';
    try {
      raw.exec('BEGIN IMMEDIATE');
      hooks = committed;
      depth = 0;
      try {
        result = await runFrame(new TxFrame(owner, writeStores, 'serializable'), fn);
        hooks = undefined;
        raw.exec('COMMIT');
        outcome = 'commit';
      } catch (e) {
        hooks = undefined;
        committed.length = 0;
        if (raw.inTransaction) raw.exec('ROLLBACK');
        throw e;
      }
      endShared();
    } finally {
      release();
      metrics?.txDuration.observe((performance.now() - began) / 1000, { engine: 'sqlite', outcome });
    }
    // Outside the lock, so a hook may start a transaction of its own.
    if (committed.length > 0) runHooks(committed);
    return result;
  };
  const readSnapshot = () => (sharing ? snapshot : undefined);
  // For the checkpointer (sqlite.ts `betweenWrites`): no transaction of ours begins meanwhile,
  // and our shared read snapshot is ended before and after, so the next write may start the WAL over.
  db.betweenWrites = async (fn) => {
    const release = await lock.acquire();
    try {
      endShared();
      await fn();
      endShared();
    } finally {
      release();
    }
  };

  const scrubDeleted = async (): Promise<'done' | 'busy'> => {
    if (joinable(owner)) throw new NestedTransactionMisuse('scrubDeleted inside a transaction would wait for it forever');
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
  // Version channels, read once per shared read snapshot (every read outside one): the three
  // the hot paths read on every request in one statement, any other at its first read.
  let hotStmt: Statement | undefined; // prepared on first use: after migrations
  let oneStmt: Statement | undefined;
  let versionSnapshot: number | undefined;
  const versions = new Map<string, number>();
  const version = (channel: string): number => {
    const s = readSnapshot();
    if (s === undefined || s !== versionSnapshot) {
      versions.clear();
      hotStmt ??= reader.prepare(`SELECT name, version FROM version_channels WHERE name IN ('${CHANNEL.catalog}', '${CHANNEL.tokenState}', '${CHANNEL.directory}')`).raw();
      for (const [name, v] of hotStmt.all() as [string, number][]) versions.set(name, v);
      versionSnapshot = s;
    }
    let v = versions.get(channel);
    if (v === undefined) {
      oneStmt ??= reader.prepare('SELECT version FROM version_channels WHERE name = ?').pluck();
      v = (oneStmt.get(channel) as number | undefined) ?? 0;
      versions.set(channel, v);
    }
    return v;
  };

  const readiness = async () => {
    try {
      reader.prepare('SELECT 1').get();
      return pendingMigrations(reader).length === 0 ? ('ready' as const) : ('migrations pending' as const);
    } catch {
      return 'database unavailable' as const;
    }
  };
  const close = async () => db.close();

  // One writer: a single-statement write is a transaction like any other.
  const write = <T>(fn: (stores: S) => Promise<T>): Promise<T> => tx(fn);
  const inTransaction = () => joinable(owner) !== undefined;

  const engine = { dialect: 'sqlite' as const, tx, write, inTransaction, shareReadsThisTurn, readSnapshot, scrubDeleted, version, readiness, close };
  return Object.assign(Object.create(null) as object, readStores, engine) as StoreOf<S>;
}
