import { getTableName } from 'drizzle-orm';
import type pg from 'pg';
import { installationMentioned, installationOwned, profileOwned } from '../../db/schema/erasure';
import type { Logger } from '../logger';
import { pendingPgMigrations } from './pg-migrations';
import { createPostgresSql, isConnectionLost, newPgClient, scrubFor, type Pg, type PgRunner } from './postgres';
import type { Sql } from './sql';
import { isRetryable, TransactionAborted, runAfterCommitHooks, type StoreOf, type TxMetrics, type TxOptions, type TxScope } from './store';
import { joinable, runFrame, TxFrame, type Isolation } from './tx-frame';
import { HeardVersions, noticeReport, versionReport } from './pg-versions';
import { CHANNEL } from './version-channels';

export interface PostgresStoreOptions {
  /** Attempts of a transaction aborted by a serialization failure or a deadlock; default 5. */
  maxAttempts?: number;
  /** Transaction timings (platform/metrics.ts). */
  metrics?: TxMetrics;
}

const ENGINE = { engine: 'postgres' } as const;


const CATALOG_CHANNEL = 'engage_catalog';
const BEGIN = {
  'read committed': 'BEGIN ISOLATION LEVEL READ COMMITTED',
  'repeatable read': 'BEGIN ISOLATION LEVEL REPEATABLE READ',
  serializable: 'BEGIN ISOLATION LEVEL SERIALIZABLE',
} as const;

/** Pauses between attempts to listen again: from a tenth of a second, doubling up to 3 s. */
const RELISTEN_MIN_MS = 100;
const RELISTEN_MAX_MS = 3000;

/**
 * The PostgreSQL engine of the store port (DESIGN.md "Storage"), with the contract of the
 * SQLite one (sqlite-store.ts):
 * - statements outside a transaction run on the pool, each on whichever connection is free;
 * - `tx` runs `fn` in a transaction on one client checked out of the pool (BEGIN ISOLATION
 *   LEVEL …, READ COMMITTED unless asked, COMMIT), with every context's stores bound to it; the
 *   whole of `fn` runs again on a serialization failure or a deadlock, a few times, after a
 *   random pause. On a failure the transaction is rolled back, unless its connection is lost:
 *   then the client is destroyed (`release(err)`) and the error goes to the caller (nothing
 *   runs again, as a COMMIT whose answer was lost may have committed; except when the loss is
 *   found by BEGIN, before anything ran: then `fn` runs on another connection);
 * - a `tx` or `write` nested in a transaction joins it as a savepoint (tx-frame.ts), as on SQLite;
 * - `savepoint` is a SAVEPOINT on that client, rolled back to (and released) when `fn` throws;
 *   a failure that took the transaction with it (connection lost, transaction ended) is a
 *   `TransactionAborted`;
 * - the catalogue version is a counter in memory, moved by NOTIFY (the catalogue triggers,
 *   migrations/pg/0001) received on a dedicated LISTEN connection outside the pool, by every
 *   reconnection of that connection (nothing is known about the time it was away), and at once
 *   after a commit of this process that changed the catalogue (the triggers also raise a notice
 *   to the writing session: a transaction or statement that received one moves the version when
 *   it has committed), so neither this process nor any other serves a stale catalogue row after
 *   the change is acknowledged (within the notification's latency for other processes);
 * - the token state version (grant and access token revocations, user status and claims:
 *   migrations/pg/0005) moves the same way, on the same channel; while the LISTEN connection is
 *   down it moves on every read, so nothing cached under it is trusted meanwhile.
 *
 * No connection loss ends the process: every pool, client and the listening connection has an
 * 'error' listener (postgres.ts), and the requests in flight on a lost connection fail.
 *
 * Async, unlike the SQLite engine's factory: it starts listening and reads the version first.
 */
export async function createPostgresStore<S extends object>(
  pool: Pg,
  bind: (sql: Sql) => S,
  logger: Logger,
  options: PostgresStoreOptions = {},
): Promise<StoreOf<S>> {
  const maxAttempts = options.maxAttempts ?? 5;
  const statements = new Map(); // placeholder translations, shared by every binding
  const versions = new HeardVersions();

  /**
   * Runs `fn` on a client of the pool and hands the client back afterwards, destroyed (so the
   * pool opens another) when its connection is lost or `fn` set `state.destroy`.
   * `state.reported` holds what the version triggers reported on it meanwhile.
   */
  interface ClientState {
    /** The highest value reported on this client by version channel (notices of engage_version_bump). */
    reported: Map<string, number>;
    destroy?: Error;
  }
  const withClient = async <T>(fn: (client: pg.PoolClient, state: ClientState) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient;
    const asked = options.metrics ? performance.now() : 0;
    try {
      client = await pool.connect();
    } catch (e) {
      throw scrubFor(pool, e);
    }
    options.metrics?.txWait.observe((performance.now() - asked) / 1000, ENGINE);
    const state: ClientState = { reported: new Map() };
    const onNotice = (n: { message?: string }) => {
      const r = noticeReport(n.message);
      if (r) state.reported.set(r[0], Math.max(state.reported.get(r[0]) ?? -1, r[1]));
    };
    client.on('notice', onNotice);
    try {
      return await fn(client, state);
    } catch (e) {
      if (isConnectionLost(e, client)) state.destroy ??= e instanceof Error ? e : new Error(String(e));
      throw e;
    } finally {
      client.off('notice', onNotice);
      if (!state.destroy && isConnectionLost(undefined, client)) state.destroy = new Error('connection lost');
      client.release(state.destroy);
    }
  };

  // Statements outside a transaction: one client per statement, like pool.query, except that a
  // failed statement does not cost the connection, and a catalogue change moves the version.
  const poolRunner: PgRunner = {
    query: (config) =>
      withClient(async (client, state) => {
        const result = await client.query(config);
        if (state.reported.size > 0) versions.reportAll(state.reported); // committed with the statement
        return result;
      }),
  };
  const readStores = bind(createPostgresSql(poolRunner, statements));

  // --- catalogue version ---------------------------------------------------------------------
  let listener: pg.Client | undefined;
  let closed = false;
  let relistenTimer: NodeJS.Timeout | undefined;
  let failures = 0;

  /** Opens the LISTEN connection; rejects if it cannot. */
  const listen = async (): Promise<void> => {
    let warned = false; // a loss comes as the server's FATAL message, then the closed socket: said once
    const client = newPgClient(pool, (e) => {
      if (listener === client && !warned) logger.warn('catalogue notifications lost', { err: e });
      warned = true;
    });
    client.on('notification', (msg) => {
      if (msg.channel !== CATALOG_CHANNEL) return;
      const [channel, v] = versionReport(msg.payload ?? '');
      versions.report(channel, v);
    });
    client.on('end', () => {
      if (listener !== client) return;
      listener = undefined;
      if (!closed) relisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOG_CHANNEL}`);
    } catch (e) {
      client.end().catch(() => {});
      throw scrubFor(pool, e);
    }
    if (closed) {
      await client.end().catch(() => {});
      return;
    }
    listener = client;
  };
  const relisten = () => {
    const delay = Math.min(RELISTEN_MAX_MS, RELISTEN_MIN_MS * 2 ** failures);
    relistenTimer = setTimeout(() => {
      relistenTimer = undefined;
      listen().then(
        () => {
          if (closed) return;
          failures = 0;
          // Whatever changed while nobody listened is unknown: everything is to be read again.
          versions.forgetAll();
          logger.info('catalogue notifications resumed');
        },
        (e: unknown) => {
          if (closed) return;
          if (failures++ === 0) logger.warn('catalogue notifications: cannot listen again yet, retrying', { err: e });
          relisten();
        },
      );
    }, delay * (0.5 + Math.random() / 2));
    relistenTimer.unref();
  };

  await listen();
  // Listening first, then reading: a change in between moves the counter twice, never zero times.
  try {
    const { rows } = await pool.query<{ name: string; version: string | number }>('SELECT name, version FROM version_channels');
    for (const r of rows) versions.start(r.name, Number(r.version));
  } catch (e) {
    closed = true;
    await listener?.end().catch(() => {});
    throw scrubFor(pool, e);
  }
  // A change by another process reaches this one by notification; while nothing listens, nothing
  // cached under a channel is trusted (every read is a new version: the caches read through),
  // the catalogue's aside, which keeps serving what it holds until listening resumes.
  const version = (channel: string) => (listener || channel === CHANNEL.catalog ? versions.get(channel) : versions.move(channel));

  // --- transactions --------------------------------------------------------------------------
  const runHooks = (fns: (() => unknown)[]) => runAfterCommitHooks(fns, logger);

  /** Errors of a BEGIN on a lost connection: the transaction may simply run on another one. */
  const lostAtBegin = new WeakSet<Error>();
  let savepoints = 0; // names: unique within this process, so nested ones never collide
  /** Every context's stores bound to a client of the pool, made at its first transaction. */
  const boundTo = new WeakMap<pg.PoolClient, S>();

  const owner = {}; // what a nested `tx` recognises this store's transactions by
  const attempt = <T>(
    fn: (stores: S & TxScope) => Promise<T> | T,
    isolation: Isolation,
    hooks: (() => unknown)[],
  ): Promise<{ result: T; reported: Map<string, number> }> =>
    withClient(async (client, state) => {
      try {
        await client.query(BEGIN[isolation]);
      } catch (e) {
        // An idle connection of the pool that died unnoticed (a failover): nothing ran yet.
        if (isConnectionLost(e, client) && e instanceof Error) lostAtBegin.add(e);
        throw e;
      }
      let open = true;
      const afterCommit = (f: () => unknown) => {
        if (!open) throw new Error('afterCommit outside a transaction');
        hooks.push(f);
      };
      const savepoint = async <R>(f: () => Promise<R> | R): Promise<R> => {
        if (!open) throw new Error('savepoint outside a transaction');
        const name = `engage_sp${++savepoints}`;
        const hooksBefore = hooks.length;
        try {
          await client.query(`SAVEPOINT ${name}`);
        } catch (e) {
          // Refused outside a transaction block (25P01), in an aborted one (25P02), and on a
          // lost connection: the transaction is gone either way.
          throw new TransactionAborted(e);
        }
        let result: R;
        try {
          result = await f();
        } catch (e) {
          hooks.length = hooksBefore;
          if (!open || isConnectionLost(e, client)) throw new TransactionAborted(e);
          try {
            await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
            await client.query(`RELEASE SAVEPOINT ${name}`);
          } catch {
            // The transaction ended under the savepoint (a ROLLBACK, a lost connection).
            throw new TransactionAborted(e);
          }
          throw e;
        }
        try {
          await client.query(`RELEASE SAVEPOINT ${name}`);
        } catch (e) {
          hooks.length = hooksBefore;
          throw new TransactionAborted(e);
        }
        return result;
      };
      let bound = boundTo.get(client);
      if (!bound) {
        bound = bind(createPostgresSql(client, statements));
        boundTo.set(client, bound);
      }
      const scope = Object.assign(Object.create(null) as object, bound, { afterCommit, savepoint }) as S & TxScope;
      let result: T;
      try {
        try {
          result = await runFrame(new TxFrame(owner, scope, isolation), fn);
        } finally {
          open = false;
        }
        // COMMIT of a transaction that had failed (an error caught inside `fn`) answers ROLLBACK.
        const commit = await client.query('COMMIT');
        if (commit.command !== 'COMMIT') throw new TransactionAborted(new Error(`COMMIT answered ${commit.command}`));
      } catch (e) {
        if (!isConnectionLost(e, client)) {
          // A client whose ROLLBACK failed is in no known state: destroyed, not reused.
          await client.query('ROLLBACK').catch((re: unknown) => (state.destroy = new Error('ROLLBACK failed', { cause: re })));
        }
        throw e;
      }
      return { result, reported: state.reported };
    });

  /** Jitter, so the transactions that collided do not collide again. */
  const pauseBeforeAttempt = (n: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** n)));

  const tx = async <T>(fn: (stores: S & TxScope) => Promise<T> | T, txOptions: TxOptions = {}): Promise<T> => {
    const joined = joinable<S & TxScope>(owner);
    if (joined) return joined.join(fn, txOptions.isolation);
    const isolation = txOptions.isolation ?? 'read committed';
    if (!BEGIN[isolation]) throw new Error(`unknown isolation level ${String(txOptions.isolation)}`);
    for (let n = 1; ; n++) {
      const hooks: (() => unknown)[] = [];
      let done: { result: T; reported: Map<string, number> };
      const began = options.metrics ? performance.now() : 0;
      try {
        done = await attempt(fn, isolation, hooks);
        options.metrics?.txDuration.observe((performance.now() - began) / 1000, { engine: 'postgres', outcome: 'commit' });
      } catch (e) {
        options.metrics?.txDuration.observe((performance.now() - began) / 1000, { engine: 'postgres', outcome: 'rollback' });
        if (n < maxAttempts && (isRetryable(e) || lostAtBegin.has(e as Error))) {
          options.metrics?.txRetries.inc(ENGINE);
          await pauseBeforeAttempt(n);
          continue;
        }
        throw e;
      }
      // A catalogue or token state change committed here moves the version now rather than
      // when the notification comes back.
      if (done.reported.size > 0) versions.reportAll(done.reported);
      if (hooks.length > 0) runHooks(hooks);
      return done.result;
    }
  };

  // A single statement is its own transaction (READ COMMITTED, autocommit): no BEGIN or COMMIT.
  // A deadlock rolled it back whole, so it may run again; a lost connection is the caller's
  // (the statement may have committed).
  const write = async <T>(fn: (stores: S) => Promise<T>): Promise<T> => {
    // Inside a transaction a statement on another connection would not see its writes, and
    // would wait forever for a row it locked: it joins instead.
    const joined = joinable<S & TxScope>(owner);
    if (joined) return joined.join(fn, undefined);
    for (let n = 1; ; n++) {
      try {
        return await fn(readStores);
      } catch (e) {
        if (n < maxAttempts && isRetryable(e)) {
          options.metrics?.txRetries.inc(ENGINE);
          await pauseBeforeAttempt(n);
          continue;
        }
        throw e;
      }
    }
  };

  // --- the rest of the engine ----------------------------------------------------------------
  // PostgreSQL keeps a deleted row's bytes in its page until VACUUM prunes it and later writes
  // reuse the space; there is no secure_delete. VACUUM (which cannot run in a transaction)
  // removes the dead rows of the tables erasure touches from their pages and indexes; older
  // images may survive in WAL segments until they are recycled (docs/decisions.md). Best
  // effort, always 'done'; several processes may run it at once.
  const erasedTables = [...new Set([...installationOwned, ...profileOwned, ...installationMentioned].map((o) => getTableName(o.table)))];
  const scrubDeleted = async (): Promise<'done' | 'busy'> => {
    await poolRunner.query({ text: `VACUUM ${erasedTables.map((t) => `"${t}"`).join(', ')}` });
    return 'done';
  };

  const readiness = async () => {
    try {
      return (await pendingPgMigrations(poolRunner)).length === 0 ? ('ready' as const) : ('migrations pending' as const);
    } catch {
      return 'database unavailable' as const;
    }
  };
  const close = async () => {
    closed = true;
    clearTimeout(relistenTimer);
    const l = listener;
    listener = undefined;
    await l?.end().catch(() => {});
    await pool.end({ timeout: 5 });
  };

  const engine = {
    dialect: 'postgres' as const,
    tx,
    write,
    inTransaction: () => joinable(owner) !== undefined,
    shareReadsThisTurn: () => {},
    readSnapshot: () => undefined,
    scrubDeleted,
    version,
    readiness,
    close,
  };
  return Object.assign(Object.create(null) as object, readStores, engine) as StoreOf<S>;
}
