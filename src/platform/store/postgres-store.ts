import { getTableName } from 'drizzle-orm';
import type postgres from 'postgres';
import { installationOwned, profileOwned } from '../../db/schema/erasure';
import type { Logger } from '../logger';
import { pendingPgMigrations } from './pg-migrations';
import { createPostgresSql, onPgNotice, type Pg, type PgRunner } from './postgres';
import type { Sql } from './sql';
import { TransactionAborted, type StoreOf, type TxOptions, type TxScope } from './store';

export interface PostgresStoreOptions {
  /** Attempts of a transaction aborted by a serialization failure or a deadlock; default 5. */
  maxAttempts?: number;
}

/** serialization_failure and deadlock_detected: the transaction may simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);

export function isRetryable(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    if (RETRYABLE.has((c as { code?: string }).code ?? '')) return true;
  }
  return false;
}

const CATALOG_CHANNEL = 'engage_catalog';
const CATALOG_NOTICE = 'engage_catalog_changed';

/**
 * The PostgreSQL engine of the store port (DESIGN.md "Storage"), with the contract of the
 * SQLite one (sqlite-store.ts):
 * - reads outside a transaction run on the pool, each on whichever connection is free;
 * - `tx` runs `fn` in a transaction on one connection (`sql.begin`), READ COMMITTED unless
 *   asked, with every context's stores bound to it; the whole of `fn` runs again on a
 *   serialization failure or a deadlock, a few times, after a random pause;
 * - `savepoint` is a SAVEPOINT on that connection: statements inside go to it (postgres.js
 *   rolls back to it when one of them fails), and a failure that took the transaction with
 *   it is a `TransactionAborted`;
 * - the catalogue version is a counter in memory, moved by NOTIFY (the catalogue triggers,
 *   migrations/pg/0001), by every reconnection of the listening connection (nothing is known
 *   about the time it was away), and at once after a commit of this process that changed the
 *   catalogue (the triggers also raise a notice to the writer), so neither this process nor
 *   any other serves a stale catalogue row after the change is acknowledged (within the
 *   notification's latency for other processes).
 *
 * Async, unlike the SQLite engine's factory: it starts listening and reads the version first.
 */
export async function createPostgresStore<S extends object>(
  pg: Pg,
  bind: (sql: Sql) => S,
  logger: Logger,
  options: PostgresStoreOptions = {},
): Promise<StoreOf<S>> {
  const maxAttempts = options.maxAttempts ?? 5;
  const statements = new Map(); // placeholder translations, shared by every binding
  const readStores = bind(createPostgresSql(pg, statements));

  // --- catalogue version ---------------------------------------------------------------------
  let version = 0;
  let notices = 0;
  const stopNotices = onPgNotice(pg, (message) => {
    if (message === CATALOG_NOTICE) notices++;
  });
  let listening = false;
  const listen = await pg.listen(
    CATALOG_CHANNEL,
    () => version++,
    () => {
      // Called at the first LISTEN and after every reconnection of the listening connection.
      if (listening) {
        version++;
        logger.info('catalogue notifications resumed');
      }
      listening = true;
    },
  );
  // Listening first, then reading: a change in between moves the counter twice, never zero times.
  const [row] = await pg.unsafe<{ version: number }[]>('SELECT version FROM catalog_version WHERE id = 1');
  version += row?.version ?? 0;
  const catalogVersion = () => version;

  // --- transactions --------------------------------------------------------------------------
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

  const attempt = async <T>(fn: (stores: S & TxScope) => Promise<T> | T, isolation: string, hooks: (() => unknown)[]): Promise<T> => {
    // Settles (rejects) when the transaction ends in failure, the loss of its connection
    // included: a savepoint waiting on a dead connection gives up then.
    let abort!: (e: unknown) => void;
    const aborted = new Promise<never>((_, reject) => (abort = reject));
    aborted.catch(() => {});
    const begun = pg.begin(`isolation level ${isolation}`, async (t) => {
      // The innermost open savepoint (or the transaction): where the stores' statements go.
      const scopes: PgRunner[] = [t];
      let open = true;
      const afterCommit = (f: () => unknown) => {
        if (!open) throw new Error('afterCommit outside a transaction');
        hooks.push(f);
      };
      const savepoint = async <R>(f: () => Promise<R> | R): Promise<R> => {
        if (!open) throw new Error('savepoint outside a transaction');
        const parent = scopes[scopes.length - 1] as postgres.TransactionSql;
        const hooksBefore = hooks.length;
        try {
          const done = parent.savepoint(async (sp) => {
            scopes.push(sp);
            try {
              return await f();
            } finally {
              scopes.pop();
            }
          });
          return (await Promise.race([done, aborted])) as R;
        } catch (e) {
          hooks.length = hooksBefore;
          if (!open) throw new TransactionAborted(e);
          // postgres.js has rolled back to the savepoint, or failed to: then the transaction
          // is gone (connection lost, or aborted outside the savepoint), and says so here.
          // A SAVEPOINT is refused outside a transaction block (25P01), in an aborted one
          // (25P02), and on a lost connection.
          const alive = await parent.unsafe('SAVEPOINT engage_alive; RELEASE SAVEPOINT engage_alive').then(
            () => true,
            () => false,
          );
          if (!alive) throw new TransactionAborted(e);
          throw e;
        }
      };
      const scope = Object.assign(
        Object.create(null) as object,
        bind(createPostgresSql(() => scopes[scopes.length - 1], statements)),
        { afterCommit, savepoint },
      ) as S & TxScope;
      try {
        return await fn(scope);
      } finally {
        open = false;
      }
    });
    try {
      return (await begun) as T;
    } catch (e) {
      abort(e);
      throw e;
    }
  };

  const tx = async <T>(fn: (stores: S & TxScope) => Promise<T> | T, txOptions: TxOptions = {}): Promise<T> => {
    const isolation = txOptions.isolation ?? 'read committed';
    for (let n = 1; ; n++) {
      const hooks: (() => unknown)[] = [];
      const noticesBefore = notices;
      let result: T;
      try {
        result = await attempt(fn, isolation, hooks);
      } catch (e) {
        if (n < maxAttempts && isRetryable(e)) {
          // Jitter, so the transactions that collided do not collide again.
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** n)));
          continue;
        }
        throw e;
      }
      // A catalogue change committed here (or by a neighbour meanwhile: harmless) moves the
      // version now rather than when the notification comes back.
      if (notices !== noticesBefore) version++;
      if (hooks.length > 0) runHooks(hooks);
      return result;
    }
  };

  // --- the rest of the engine ----------------------------------------------------------------
  // PostgreSQL keeps a deleted row's bytes in its page until VACUUM prunes it and later writes
  // reuse the space; there is no secure_delete. VACUUM (which cannot run in a transaction)
  // removes the dead rows of the tables erasure touches from their pages and indexes; older
  // images may survive in WAL segments until they are recycled (docs/decisions.md). Best
  // effort, always 'done'; several processes may run it at once.
  const erasedTables = [...new Set([...installationOwned, ...profileOwned].map((o) => getTableName(o.table)))];
  const scrubDeleted = async (): Promise<'done' | 'busy'> => {
    await pg.unsafe(`VACUUM ${erasedTables.map((t) => `"${t}"`).join(', ')}`);
    return 'done';
  };

  const readiness = async () => {
    try {
      return (await pendingPgMigrations(pg)).length === 0 ? ('ready' as const) : ('migrations pending' as const);
    } catch {
      return 'database unavailable' as const;
    }
  };
  const close = async () => {
    stopNotices();
    await listen.unlisten().catch(() => {});
    await pg.end({ timeout: 5 });
  };

  const engine = {
    dialect: 'postgres' as const,
    tx,
    shareReadsThisTurn: () => {},
    readSnapshot: () => undefined,
    scrubDeleted,
    catalogVersion,
    readiness,
    close,
  };
  return Object.assign(Object.create(null) as object, readStores, engine) as StoreOf<S>;
}
