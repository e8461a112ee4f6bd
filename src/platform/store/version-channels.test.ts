import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarnessPair, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { versionReport } from './pg-versions';
import { CHANNEL, checkChannel } from './version-channels';
import { SYSTEM_ACTOR } from '../../identity/audit';

const until = async (cond: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
};
/** How long another process may take to see a move: the next turn on SQLite, a notification on PostgreSQL. */
const SEEN_WITHIN = TEST_ENGINE === 'sqlite' ? 50 : 1000;

let h: Harness;
let other: Awaited<ReturnType<Harness['otherProcess']>>;
beforeEach(async () => {
  ({ h, other } = await createHarnessPair());
});
afterEach(() => h.close());

describe('named version channels (issue 22 point 6)', () => {
  it('a channel is made at its first bump, moves with its commit in this process and in another, and alone', async () => {
    const mine = h.services.store;
    const theirs = other.store;
    expect(mine.version('sync:env-a')).toBe(theirs.version('sync:env-a')); // never moved: both read nothing yet
    const before = { a: mine.version('sync:env-a'), b: mine.version('sync:env-b'), catalog: mine.version(CHANNEL.catalog), theirs: theirs.version('sync:env-a') };

    expect(await mine.tx((tx) => tx.versions.bump('sync:env-a'))).toBe(1);
    expect(mine.version('sync:env-a')).not.toBe(before.a); // at commit, in the writing process
    expect(await until(() => theirs.version('sync:env-a') !== before.theirs, SEEN_WITHIN)).toBe(true);
    expect(mine.version('sync:env-b')).toBe(before.b);
    expect(mine.version(CHANNEL.catalog)).toBe(before.catalog);
    const rows = await h.sql.all<{ name: string; version: number }>(`SELECT name, version FROM version_channels WHERE name LIKE 'sync:%'`);
    expect(rows.map((r) => [r.name, Number(r.version)])).toEqual([['sync:env-a', 1]]);

    // Several bumps in one transaction, and a bump by the other process.
    const mid = mine.version('sync:env-a');
    await theirs.tx(async (tx) => {
      await tx.versions.bump('sync:env-a');
      expect(await tx.versions.bump('sync:env-a')).toBe(3);
    });
    expect(await until(() => mine.version('sync:env-a') !== mid, SEEN_WITHIN)).toBe(true);
  });

  it('a bump in a transaction that rolls back moves nothing, anywhere', async () => {
    const first = other.store.version('inbox:e1');
    await h.services.store.tx((tx) => tx.versions.bump('inbox:e1'));
    expect(await until(() => other.store.version('inbox:e1') !== first, SEEN_WITHIN)).toBe(true);
    const mine = h.services.store.version('inbox:e1');
    const theirs = other.store.version('inbox:e1');
    await expect(
      h.services.store.tx(async (tx) => {
        await tx.versions.bump('inbox:e1');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((r) => setTimeout(r, 100));
    expect(h.services.store.version('inbox:e1')).toBe(mine);
    expect(other.store.version('inbox:e1')).toBe(theirs);
    expect(Number((await h.sql.get<{ v: number }>(`SELECT version AS "v" FROM version_channels WHERE name = 'inbox:e1'`))!.v)).toBe(1);
  });

  it('the three fixed channels are rows of the table, moved by their triggers', async () => {
    const names = (await h.sql.all<{ name: string }>('SELECT name FROM version_channels ORDER BY name')).map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining([CHANNEL.catalog, CHANNEL.directory, CHANNEL.tokenState]));
    const before = other.store.version(CHANNEL.directory);
    const tenant = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    await h.sql.run(`INSERT INTO directory_permissions (tenant_id, key, display_name, status, created_at) VALUES (?, 'docs.read', 'Docs', 'ACTIVE', 'x')`, [tenant.id]);
    expect(await until(() => other.store.version(CHANNEL.directory) !== before, SEEN_WITHIN)).toBe(true);
  });

  it('refuses a name that is not <word> or <word>:<scope>', async () => {
    for (const bad of ['', 'Sync', 'sync:', 'sync:a b', `sync:${'x'.repeat(101)}`, "x'; DROP TABLE users; --"]) {
      expect(() => checkChannel(bad), bad).toThrow('not a version channel name');
      await expect(h.services.store.tx((tx) => tx.versions.bump(bad))).rejects.toThrow('not a version channel name');
    }
    expect(checkChannel('sync:0b7c3a9e-1d2f-4c55-9a10-6f1e2d3c4b5a')).toBe('sync:0b7c3a9e-1d2f-4c55-9a10-6f1e2d3c4b5a');
  });
});

describe('version reports of the PostgreSQL engine', () => {
  it('reads <channel>:<v>, a channel holding a colon, and the forms written before migration 0025', () => {
    expect(versionReport('sync:env-a:7')).toEqual(['sync:env-a', 7]);
    expect(versionReport('directory:3')).toEqual(['directory', 3]);
    expect(versionReport('12')).toEqual(['catalog', 12]);
    expect(versionReport('2:5')).toEqual(['token_state', 5]);
    expect(versionReport('3:9')).toEqual(['directory', 9]);
    expect(versionReport('garbage')).toEqual(['catalog', -1]);
  });
});
