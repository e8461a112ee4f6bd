import { createHash } from 'node:crypto';
import { migrationsFromDisk, type Migration } from './migrations';
import type { PoolClient } from 'pg';
import { isConnectionLost, scrubFor, type Pg, type PgRunner } from './postgres';

/** Filled in by build.mjs (esbuild define) so the executable carries migrations/pg. */
declare const __ENGAGE_PG_MIGRATIONS__: Migration[] | undefined;


/** The PostgreSQL migrations (migrations/pg, src/db/migrated-schema.test.ts checks them), in order. */
export function loadPgMigrations(): Migration[] {
  return typeof __ENGAGE_PG_MIGRATIONS__ !== 'undefined' ? __ENGAGE_PG_MIGRATIONS__ : migrationsFromDisk('pg');
}

/**
 * The session advisory lock every applier takes (two int4 keys: 'enga' and 1). Held on one
 * client (checked out of the pool) for the whole run, so it goes away with the connection if the process dies.
 */
const LOCK = 'pg_advisory_lock(1701733991, 1)';
const UNLOCK = 'pg_advisory_unlock(1701733991, 1)';

// The same shape as SQLite's ledger (migrations.ts).
const LEDGER = `CREATE TABLE IF NOT EXISTS engage_migrations (
  tag TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at TEXT NOT NULL)`;

async function appliedTags(pg: PgRunner): Promise<Set<string>> {
  const { rows: [has] } = await pg.query<{ t: string | null }>({ text: `SELECT to_regclass('engage_migrations')::text AS t` });
  if (!has?.t) return new Set();
  const { rows } = await pg.query<{ tag: string }>({ text: 'SELECT tag FROM engage_migrations' });
  return new Set(rows.map((r) => r.tag));
}

/** Whether engage was ever migrated into this database (its ledger exists): what "initialised" needs first. */
export async function hasMigrationLedger(pg: PgRunner): Promise<boolean> {
  const { rows: [has] } = await pg.query<{ t: string | null }>({ text: `SELECT to_regclass('engage_migrations')::text AS t` });
  return !!has?.t;
}

/** The migrations not yet applied (readiness, `engage migrate --status`). */
export async function pendingPgMigrations(pg: PgRunner, migrations = loadPgMigrations()): Promise<Migration[]> {
  const done = await appliedTags(pg);
  return migrations.filter((m) => !done.has(m.tag));
}

/**
 * Applies every migration not in the ledger, each in its own transaction, under a session
 * advisory lock: several processes starting at once on a fresh database wait for each other,
 * and each migration is applied once. Returns the tags this call applied.
 */
export async function applyPgMigrations(pg: Pg, migrations = loadPgMigrations()): Promise<string[]> {
  let conn: PoolClient;
  try {
    conn = await pg.connect();
  } catch (e) {
    throw scrubFor(pg, e);
  }
  const applied: string[] = [];
  // Destroyed rather than returned to the pool when its connection is lost, its lock is not
  // known to be released, or a transaction is not known to be closed.
  let destroy: Error | undefined;
  try {
    await conn.query(`SELECT ${LOCK}`);
    try {
      await conn.query(LEDGER);
      const done = await appliedTags(conn);
      for (const m of migrations) {
        if (done.has(m.tag)) continue;
        await conn.query('BEGIN');
        try {
          for (const stmt of m.sql.split('--> statement-breakpoint')) {
            // Simple protocol, no parameters: a statement may hold several (function bodies).
            if (stmt.trim()) await conn.query(stmt);
          }
          await conn.query('INSERT INTO engage_migrations (tag, hash, applied_at) VALUES ($1, $2, $3)', [
            m.tag,
            createHash('sha256').update(m.sql).digest('hex'),
            new Date().toISOString(),
          ]);
          await conn.query('COMMIT');
        } catch (e) {
          await conn.query('ROLLBACK').catch((re: unknown) => (destroy = new Error('ROLLBACK failed', { cause: re })));
          throw new Error(`migration ${m.tag} failed: ${(e as Error).message}`, { cause: scrubFor(pg, e) });
        }
        applied.push(m.tag);
      }
    } finally {
      await conn.query(`SELECT ${UNLOCK}`).catch((e: unknown) => (destroy = new Error('advisory unlock failed', { cause: e })));
    }
  } catch (e) {
    if (isConnectionLost(e, conn)) destroy ??= e as Error;
    throw e;
  } finally {
    conn.release(destroy);
  }
  return applied;
}
