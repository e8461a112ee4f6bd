import { CHANNEL } from '../../src/platform/store/version-channels';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';
import { createApp } from '../../src/app';
import { openAppStore } from '../../src/open-store';
import { fixedClock } from '../../src/platform/clock';
import { loadConfig, type Config } from '../../src/platform/config';
import { silentLogger, type Logger } from '../../src/platform/logger';
import { createServices } from '../../src/services';
import { SYSTEM_ACTOR } from '../../src/identity/audit';
import { createTestDatabase } from './pg-cluster';

export const PUBLIC_URL = 'http://engage.test';

/** The engine the suite runs on: ENGAGE_TEST_ENGINE=postgres, or the embedded SQLite file. */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.ENGAGE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** `describe` for what only the SQLite engine has (its file, WAL and pragmas); skipped on PostgreSQL. */
export const describeSqlite = TEST_ENGINE === 'sqlite' ? describe : describe.skip;
/** `it` for what only the SQLite engine does; skipped on PostgreSQL. */
export const itSqlite = TEST_ENGINE === 'sqlite' ? it : it.skip;

/**
 * A whole engage instance with a fixed, advanceable clock, on the test engine: a temporary
 * SQLite file, or a fresh database of the test cluster (test/helpers/pg-cluster.ts).
 * `app.request(url)` exercises the real routes in process; `services` is what the CLI uses.
 */
export async function createHarness(overrides: Partial<Config> = {}, opts: { logger?: Logger } = {}) {
  const logger = opts.logger ?? silentLogger;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-test-'));
  const pg = TEST_ENGINE === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
  const config = { ...loadConfig({ flags: { dataDir, publicUrl: PUBLIC_URL, databaseUrl: pg?.url } }), ...overrides };
  const opened = await openAppStore(config, { logger: silentLogger, poolSize: 4 });
  const clock = fixedClock(new Date('2026-01-01T00:00:00Z'));
  const masterKey = randomBytes(32);
  const services = createServices({ config, store: opened.store, clock, logger, masterKey });
  await services.tenants.ensureControl();
  const app = createApp({ config, clock, logger, services });
  const others: { close(): Promise<void> }[] = [];
  return {
    config,
    /** The SQLite file's connections; only on the SQLite engine (use `sql` for portable checks). */
    get db() {
      if (!opened.sqlite) throw new Error('h.db is the SQLite engine only: use h.sql, or describeSqlite');
      return opened.sqlite;
    },
    clock,
    /** The deployment's master key (what server-signed values, like sync cursors, are keyed by). */
    masterKey,
    services,
    app,
    /**
     * Raw SQL on the test's database outside the services (assertions on stored rows, and
     * changes made "by another process"): portable SQL only (platform/store/sql.ts).
     */
    sql: opened.sql,
    /**
     * Another process on the same database (the CLI, or a second `engage serve`): its own store,
     * connections and services; `request` reaches its HTTP app. With the same master key by
     * default (a fleet shares it), or the one given.
     */
    async otherProcess(key = masterKey) {
      const other = await openAppStore(config, { logger: silentLogger, poolSize: 4 });
      others.push(other.store);
      const otherServices = createServices({ config, store: other.store, clock, logger: silentLogger, masterKey: key });
      const otherApp = createApp({ config, clock, logger: silentLogger, services: otherServices });
      return Object.assign(otherServices, { request: (p: string, init?: RequestInit) => otherApp.request(PUBLIC_URL + p, init) });
    },
    /**
     * Runs a catalogue (or token state) change made outside this process's store (another
     * process, the CLI, raw SQL) and resolves once this process sees it: from the next event-loop turn on SQLite; on
     * PostgreSQL when its notification has arrived, which must be within a second (issue 9).
     */
    async changedElsewhere<T>(change: () => T | Promise<T>, watch: 'catalog' | 'tokenState' = 'catalog'): Promise<T> {
      const version = () => opened.store.version(CHANNEL[watch]);
      const before = version();
      const result = await change();
      if (TEST_ENGINE === 'sqlite') {
        await new Promise((r) => setImmediate(r));
        return result;
      }
      const deadline = Date.now() + 1_000;
      while (version() === before) {
        if (Date.now() > deadline) throw new Error(`a ${watch} change made elsewhere was not seen within one second`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return result;
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

/** A harness with one tenant made (as the server would, actor `system`): what most identity tests start from. */
export async function createHarnessWithTenant(slug: string): Promise<{ h: Harness; tenantId: string }> {
  const h = await createHarness();
  const tenantId = (await h.services.tenants.create({ slug }, SYSTEM_ACTOR)).id;
  return { h, tenantId };
}

/** A harness and a second process on the same database (as the CLI is while `serve` runs). */
export async function createHarnessPair(): Promise<{ h: Harness; other: Awaited<ReturnType<Harness['otherProcess']>> }> {
  const h = await createHarness();
  return { h, other: await h.otherProcess() };
}
