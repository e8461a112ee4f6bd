import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';

export interface Migration {
  tag: string;
  sql: string;
}

/** Filled in by build.mjs (esbuild define) so the executable carries its migrations. */
declare const __ENGAGE_MIGRATIONS__: Migration[] | undefined;

/** The .sql files of `migrations/<sub>` in order (development and tests; the executable embeds them). */
export function migrationsFromDisk(sub = ''): Migration[] {
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../migrations', sub);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ tag: f.slice(0, -4), sql: readFileSync(path.join(dir, f), 'utf8') }));
}

export function loadMigrations(): Migration[] {
  return typeof __ENGAGE_MIGRATIONS__ !== 'undefined' ? __ENGAGE_MIGRATIONS__ : migrationsFromDisk();
}

const LEDGER = `CREATE TABLE IF NOT EXISTS engage_migrations (
  tag TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at TEXT NOT NULL)`;

export function pendingMigrations(conn: BetterSqlite3.Database): Migration[] {
  const has = conn.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='engage_migrations'`).get();
  const done = new Set<string>(
    has ? (conn.prepare('SELECT tag FROM engage_migrations').all() as { tag: string }[]).map((r) => r.tag) : [],
  );
  return loadMigrations().filter((m) => !done.has(m.tag));
}

/**
 * Applies every migration not yet in the ledger, each in its own IMMEDIATE transaction,
 * so concurrent starters (serve and a CLI command) apply each one exactly once.
 * Returns the tags applied.
 */
export function applyMigrations(conn: BetterSqlite3.Database): string[] {
  conn.exec(LEDGER);
  const applied: string[] = [];
  for (const m of loadMigrations()) {
    conn.exec('BEGIN IMMEDIATE');
    try {
      if (!conn.prepare('SELECT 1 FROM engage_migrations WHERE tag = ?').get(m.tag)) {
        for (const stmt of m.sql.split('--> statement-breakpoint')) {
          if (stmt.trim()) conn.exec(stmt);
        }
        conn
          .prepare('INSERT INTO engage_migrations (tag, hash, applied_at) VALUES (?, ?, ?)')
          .run(m.tag, createHash('sha256').update(m.sql).digest('hex'), new Date().toISOString());
        applied.push(m.tag);
      }
      conn.exec('COMMIT');
    } catch (e) {
      conn.exec('ROLLBACK');
      throw e;
    }
  }
  return applied;
}
