import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Migration } from './migrations';
import type { Pg } from './postgres';

/** Filled in by build.mjs (esbuild define) so the executable carries migrations/pg. */
declare const __ENGAGE_PG_MIGRATIONS__: Migration[] | undefined;

function fromDisk(): Migration[] {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations/pg');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ tag: f.slice(0, -4), sql: readFileSync(path.join(dir, f), 'utf8') }));
}

/** The PostgreSQL migrations (drizzle-kit, drizzle.pg.config.ts), in order. */
export function loadPgMigrations(): Migration[] {
  return typeof __ENGAGE_PG_MIGRATIONS__ !== 'undefined' ? __ENGAGE_PG_MIGRATIONS__ : fromDisk();
}

/**
 * The session advisory lock every applier takes (two int4 keys: 'enga' and 1). Held on one
 * reserved connection for the whole run, so it goes away with the connection if the process dies.
 */
const LOCK = 'pg_advisory_lock(1701733991, 1)';
const UNLOCK = 'pg_advisory_unlock(1701733991, 1)';

// The same shape as SQLite's ledger (migrations.ts).
const LEDGER = `CREATE TABLE IF NOT EXISTS engage_migrations (
  tag TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at TEXT NOT NULL)`;

async function appliedTags(pg: Pick<Pg, 'unsafe'>): Promise<Set<string>> {
  const [has] = await pg.unsafe<{ t: string | null }[]>(`SELECT to_regclass('engage_migrations')::text AS t`);
  if (!has?.t) return new Set();
  const rows = await pg.unsafe<{ tag: string }[]>('SELECT tag FROM engage_migrations');
  return new Set(rows.map((r) => r.tag));
}

/** The migrations not yet applied (readiness, `engage migrate --status`). */
export async function pendingPgMigrations(pg: Pick<Pg, 'unsafe'>, migrations = loadPgMigrations()): Promise<Migration[]> {
  const done = await appliedTags(pg);
  return migrations.filter((m) => !done.has(m.tag));
}

/**
 * Applies every migration not in the ledger, each in its own transaction, under a session
 * advisory lock: several processes starting at once on a fresh database wait for each other,
 * and each migration is applied once. Returns the tags this call applied.
 */
export async function applyPgMigrations(pg: Pg, migrations = loadPgMigrations()): Promise<string[]> {
  const conn = await pg.reserve();
  const applied: string[] = [];
  try {
    await conn.unsafe(`SELECT ${LOCK}`);
    try {
      await conn.unsafe(LEDGER);
      const done = await appliedTags(conn);
      for (const m of migrations) {
        if (done.has(m.tag)) continue;
        await conn.unsafe('BEGIN');
        try {
          for (const stmt of m.sql.split('--> statement-breakpoint')) {
            // Simple protocol, no parameters: a statement may hold several (function bodies).
            if (stmt.trim()) await conn.unsafe(stmt);
          }
          await conn.unsafe('INSERT INTO engage_migrations (tag, hash, applied_at) VALUES ($1, $2, $3)', [
            m.tag,
            createHash('sha256').update(m.sql).digest('hex'),
            new Date().toISOString(),
          ]);
          await conn.unsafe('COMMIT');
        } catch (e) {
          await conn.unsafe('ROLLBACK').catch(() => {});
          throw new Error(`migration ${m.tag} failed: ${(e as Error).message}`, { cause: e });
        }
        applied.push(m.tag);
      }
    } finally {
      await conn.unsafe(`SELECT ${UNLOCK}`).catch(() => {});
    }
  } finally {
    conn.release();
  }
  return applied;
}
