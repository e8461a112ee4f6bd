import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/app';
import { fixedClock } from '../../src/platform/clock';
import { loadConfig, type Config } from '../../src/platform/config';
import { openDatabase } from '../../src/platform/store/sqlite';
import { createSqliteSql } from '../../src/platform/store/sql';
import { silentLogger } from '../../src/platform/logger';
import { createServices } from '../../src/services';

export const PUBLIC_URL = 'http://engage.test';

/**
 * A whole engage instance on a temporary SQLite file with a fixed, advanceable clock.
 * `app.request(url)` exercises the real routes in process; `services` is what the CLI uses.
 */
export async function createHarness(overrides: Partial<Config> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-test-'));
  const config = { ...loadConfig({ flags: { dataDir, publicUrl: PUBLIC_URL } }), ...overrides };
  const db = openDatabase(config.dataDir);
  const clock = fixedClock(new Date('2026-01-01T00:00:00Z'));
  const services = createServices({ config, db, clock, logger: silentLogger, masterKey: randomBytes(32) });
  await services.tenants.ensureControl();
  const app = createApp({ config, clock, logger: silentLogger, services });
  return {
    config,
    db,
    clock,
    services,
    app,
    /**
     * Raw SQL on the test's database outside the services (assertions on stored rows, and
     * changes made "by another process"): portable SQL only (platform/store/sql.ts).
     */
    sql: createSqliteSql(db.write.$client),
    /** `app.request` with a path relative to the public URL. */
    request: (p: string, init?: RequestInit) => app.request(PUBLIC_URL + p, init),
    close() {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;
