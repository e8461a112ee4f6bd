import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from '../../../test/helpers/pg-cluster';
import { applyPgMigrations, loadPgMigrations, pendingPgMigrations } from './pg-migrations';
import { openPostgres, type Pg } from './postgres';

const skip = pgUnavailableReason();
if (skip) console.warn(skip);

describe.skipIf(skip !== undefined)('PostgreSQL migrations', () => {
  let db: TestDatabase;
  const pools: Pg[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
    await db?.drop();
  });

  it('several processes starting at once on a fresh database apply each migration once', async () => {
    const all = loadPgMigrations();
    expect(all.map((m) => m.tag).slice(0, 2)).toEqual(['0000_init', '0001_catalog_version']);
    // One pool per "process", each applying at the same moment.
    for (let i = 0; i < 4; i++) pools.push(openPostgres(db.url, { max: 2 }));
    expect((await pendingPgMigrations(pools[0])).length).toBe(all.length);
    const results = await Promise.all(pools.map((p) => applyPgMigrations(p)));
    expect(results.flat().sort()).toEqual(all.map((m) => m.tag).sort());
    expect(await pendingPgMigrations(pools[0])).toEqual([]);
    const { rows: ledger } = await pools[0].query('SELECT tag FROM engage_migrations ORDER BY tag');
    expect(ledger.map((r) => r.tag)).toEqual(all.map((m) => m.tag));
    const { rows: channels } = await pools[0].query('SELECT name, version FROM version_channels ORDER BY name');
    expect(channels.map((r) => [r.name, Number(r.version)])).toEqual([['catalog', 1], ['directory', 1], ['token_state', 1]]);
    // Again: nothing to do.
    expect(await applyPgMigrations(pools[1])).toEqual([]);
  });

  it('a failing migration rolls back alone and leaves the ledger as it was', async () => {
    const bad = [
      ...loadPgMigrations(),
      { tag: '9999_bad', sql: 'CREATE TABLE half_done (id int);\n--> statement-breakpoint\nSELECT no_such_function()' },
    ];
    await expect(applyPgMigrations(pools[0], bad)).rejects.toThrow(/9999_bad/);
    const { rows: [t] } = await pools[0].query(`SELECT to_regclass('half_done')::text AS t`);
    expect(t.t).toBeNull();
    expect((await pendingPgMigrations(pools[0], bad)).map((m) => m.tag)).toEqual(['9999_bad']);
    // The lock was released: another applier gets through.
    expect(await applyPgMigrations(pools[1])).toEqual([]);
  });
});
