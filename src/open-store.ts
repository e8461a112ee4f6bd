import type { Config } from './platform/config';
import type { Logger } from './platform/logger';
import type { Metrics } from './platform/metrics';
import { NotInitialised, NotInitialisedError } from './platform/data-dir';
import { redactUrl } from './platform/store/database-url';
import type { Pg } from './platform/store/postgres';
import { createSqliteSql, type Sql } from './platform/store/sql';
import { openDatabase, type Database } from './platform/store/sqlite';
import { createSqliteStore } from './platform/store/sqlite-store';
import type { StoreOf } from './platform/store/store';
import { bindStores, type Stores } from './stores';

export type AppStore = StoreOf<Stores>;

export interface OpenedStore {
  store: AppStore;
  /** Statements outside the store's transactions, each committed on its own (tests, tooling). */
  sql: Sql;
  /** SQLite only: the database file's connections (the WAL checkpointer of `serve`, tests). */
  sqlite?: Database;
  /** PostgreSQL only: the store's pool (the sync's change notices NOTIFY on it and LISTEN beside it); the store's close ends it. */
  pg?: Pg;
}

/**
 * Opens the configured engine (DESIGN.md "Storage"): PostgreSQL when `databaseUrl` is set,
 * otherwise the SQLite file in the data directory; applies pending migrations unless told not to
 * (`engage migrate` applies them itself), then binds every context's stores. Errors never carry
 * the URL's password. `create: false` opens only what `engage init` (or migrate, serve) made:
 * a missing SQLite file or an unmigrated PostgreSQL database is NotInitialised, and nothing is created.
 */
export async function openAppStore(
  config: Pick<Config, 'dataDir' | 'databaseUrl'>,
  deps: { logger: Logger; metrics?: Metrics; migrate?: boolean; poolSize?: number; create?: boolean },
): Promise<OpenedStore> {
  if (config.databaseUrl) {
    // The PostgreSQL driver and store are initialised only here: a start on SQLite never runs them.
    const [{ applyPgMigrations, hasMigrationLedger }, { createPostgresSql, openPostgres }, { createPostgresStore }] = await Promise.all([
      import('./platform/store/pg-migrations'),
      import('./platform/store/postgres'),
      import('./platform/store/postgres-store'),
    ]);
    const pg = openPostgres(config.databaseUrl, { max: deps.poolSize });
    try {
      // create: false (CLI commands but init, migrate, serve): a database engage never migrated stays untouched.
      if (deps.create === false && !(await hasMigrationLedger(pg))) throw NotInitialised.database(config.databaseUrl);
      if (deps.migrate !== false) await applyPgMigrations(pg);
      return { store: await createPostgresStore(pg, bindStores, deps.logger, { metrics: deps.metrics }), sql: createPostgresSql(pg), pg };
    } catch (e) {
      await pg.end({ timeout: 1 }).catch(() => {});
      if (e instanceof NotInitialisedError) throw e;
      throw new Error(`PostgreSQL at ${redactUrl(config.databaseUrl)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  const sqlite = openDatabase(config.dataDir, { migrate: deps.migrate, create: deps.create });
  return { store: createSqliteStore(sqlite, bindStores, deps.logger, deps.metrics), sql: createSqliteSql(sqlite.write.$client), sqlite };
}
