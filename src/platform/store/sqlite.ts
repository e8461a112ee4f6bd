import BetterSqlite3 from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import * as schema from '../../db/schema';
import { NotInitialised } from '../data-dir';
import { applyMigrations } from './migrations';
import { loadSqliteNativeBinding } from '../native';

/** SQLite's automatic checkpoint threshold (pages) when no checkpointer runs (CLI, tests). */
export const AUTO_CHECKPOINT_PAGES = 4000;
/** How long a connection waits for another process's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export type Db = BetterSQLite3Database<typeof schema> & { $client: BetterSqlite3.Database };
export type RawDb = BetterSqlite3.Database;

export interface Database {
  /** The one connection that writes; used only inside `tx` (see store.ts). */
  write: Db;
  /** Read connection: under WAL it sees only committed data. */
  read: Db;
  file: string;
  close(): void;
  /**
   * Set by the store over these connections (sqlite-store.ts): runs `fn` while this process
   * begins no write transaction, its shared read snapshot ended before and after. The
   * checkpointer uses it to have the WAL start over under writes that never pause (checkpointer.ts).
   */
  betweenWrites?: (fn: () => Promise<void>) => Promise<void>;
}

/** Every pragma in one place (DESIGN.md "Storage"). */
function configure(conn: RawDb, role: 'write' | 'read'): void {
  conn.pragma('journal_mode = WAL');
  conn.pragma('foreign_keys = ON');
  conn.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // NORMAL under WAL: a commit survives a killed process (kill -9); only an OS crash or
  // power loss can drop the last transactions. See docs/decisions.md.
  conn.pragma('synchronous = NORMAL');
  conn.pragma('cache_size = -32000');
  conn.pragma('temp_store = MEMORY');
  if (role === 'write') {
    conn.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    // Deleted content is overwritten with zeros (b-tree cells, freed and overflow pages), so
    // an erased installation cannot be read back from the file (privacy revocation). Older
    // page images in the WAL are dealt with by `scrubDeleted` (store.ts). See docs/decisions.md.
    conn.pragma('secure_delete = ON');
  }
}

/**
 * Opens `<dataDir>/engage.db`. With `create: false` (every CLI command but init, migrate and
 * serve) nothing is made: a missing file is NotInitialised, naming the directory.
 */
export function openDatabase(dataDir: string, opts: { migrate?: boolean; create?: boolean } = {}): Database {
  const file = path.join(dataDir, 'engage.db');
  const create = opts.create !== false;
  if (create) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  else if (!existsSync(file)) throw NotInitialised.dataDir(dataDir);
  const nativeBinding = loadSqliteNativeBinding();
  // fileMustExist: the file removed between the check and the open is not silently recreated.
  const options = { ...(nativeBinding ? { nativeBinding: nativeBinding as string } : {}), fileMustExist: !create };
  const writeConn = new BetterSqlite3(file, options);
  configure(writeConn, 'write');
  if (opts.migrate !== false) applyMigrations(writeConn);
  const readConn = new BetterSqlite3(file, options);
  configure(readConn, 'read');
  return {
    write: drizzle(writeConn, { schema }) as Db,
    read: drizzle(readConn, { schema }) as Db,
    file,
    close() {
      readConn.close();
      writeConn.close();
    },
  };
}
