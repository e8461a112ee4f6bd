import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, itSqlite, type Harness } from '../../../test/helpers/harness';
import { bootstrap, setupEnvironment } from '../../../test/fixtures/engage';
import { createProfileStore } from './store';

/**
 * The installations' keyset pages (issue 24): the environment's rows only, in id order, through
 * the index (environment_id, id) of migration 0030.
 */
let h: Harness;
let envId: string;
const ids: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  const env = await setupEnvironment(h, 'prod');
  const other = await setupEnvironment(h, 'other');
  envId = env.environment.id;
  for (let i = 0; i < 7; i++) {
    ids.push((await bootstrap(h, env.app.appKey)).installationId);
    await bootstrap(h, other.app.appKey);
  }
  ids.sort();
}, 60_000);
afterAll(() => h.close());

describe('installation pages', () => {
  it('walks the environment in id order, `after` excluded, size rows at most', async () => {
    const store = createProfileStore(h.sql);
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const rows = await store.installationPage(envId, after, 3);
      expect(rows.length).toBeLessThanOrEqual(3);
      seen.push(...rows.map((r) => r.id));
      if (rows.length < 3) break;
      after = rows[rows.length - 1].id;
    }
    expect(seen).toEqual(ids);
    expect((await store.installationPage(envId, ids[3], 100)).map((r) => r.id)).toEqual(ids.slice(4));
  });

  itSqlite('is one seek of the index (environment_id, id), never a scan or a sort', async () => {
    const plan = await h.sql.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT id FROM installations WHERE environment_id = ? AND id > ? ORDER BY id LIMIT 100", [envId, '']);
    expect(plan.map((p) => p.detail).join(' | ')).toMatch(/^SEARCH installations USING (COVERING )?INDEX installations_environment \(environment_id=\? AND id>\?\)$/);
  });

  it('the service pages with hasMore, never a push token', async () => {
    const page = await h.services.engage.profiles.installationPage(envId, '', 4);
    expect(page.hasMore).toBe(true);
    expect(page.items.map((i) => i.id)).toEqual(ids.slice(0, 4));
    expect(page.items[0]).not.toHaveProperty('pushToken');
    expect(page.items[0].pushTokenHeld).toBe(false);
  });
});
