import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe } from 'vitest';
import { createApp } from '../../src/app';
import { openAppStore } from '../../src/open-store';
import { fixedClock } from '../../src/platform/clock';
import { loadConfig, type Config } from '../../src/platform/config';
import { silentLogger } from '../../src/platform/logger';
import { createServices } from '../../src/services';
import { createTestDatabase } from './pg-cluster';

export const PUBLIC_URL = 'http://engage.test';

/** The engine the suite runs on: ENGAGE_TEST_ENGINE=postgres, or the embedded SQLite file. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.ENGAGE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** `describe` for what only the SQLite engine has (its file, WAL and pragmas); skipped on PostgreSQL. */
export const describeSqlite = TEST_ENGINE === 'sqlite' ? describe : describe.skip;

/**
 * A whole engage instance with a fixed, advanceable clock, on the test engine: a temporary
 * SQLite file, or a fresh database of the test cluster (test/helpers/pg-cluster.ts).
 * `app.request(url)` exercises the real routes in process; `services` is what the CLI uses.
 */
export async function createHarness(overrides: Partial<Config> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-test-'));
  const pg = TEST_ENGINE === 'postgres' ? await createTestDatabase() : undefined;
  const config = { ...loadConfig({ flags: { dataDir, publicUrl: PUBLIC_URL, databaseUrl: pg?.url } }), ...overrides };
  const opened = await openAppStore(config, { logger: silentLogger, poolSize: 4 });
  const clock = fixedClock(new Date('2026-01-01T00:00:00Z'));
  const services = createServices({ config, store: opened.store, clock, logger: silentLogger, masterKey: randomBytes(32) });
  await services.tenants.ensureControl();
  const app = createApp({ config, clock, logger: silentLogger, services });
  const others: { close(): Promise<void> }[] = [];
  return {
    config,
    /** The SQLite file's connections; only on the SQLite engine (use `sql` for portable checks). */
    get db() {
      if (!opened.sqlite) throw new Error('h.db is the SQLite engine only: use h.sql, or describeSqlite');
      return opened.sqlite;
    },
    clock,
    services,
    app,
    /**
     * Raw SQL on the test's database outside the services (assertions on stored rows, and
     * changes made "by another process"): portable SQL only (platform/store/sql.ts).
     */
    sql: opened.sql,
    /** Another process on the same database, as the CLI is: its own store and services. */
    async otherProcess(masterKey = randomBytes(32)) {
      const other = await openAppStore(config, { logger: silentLogger, poolSize: 2 });
      others.push(other.store);
      return createServices({ config, store: other.store, clock, logger: silentLogger, masterKey });
    },
    /** `app.request` with a path relative to the public URL. */
    request: (p: string, init?: RequestInit) => app.request(PUBLIC_URL + p, init),
    async close() {
      for (const o of others) await o.close();
      await opened.store.close();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type Harness = Awaited<ReturnType<typeof createHarness>>;
