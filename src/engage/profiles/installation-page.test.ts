import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bootstrap, setupEnvironment } from '../../../test/fixtures/engage';
import { createProfileStore } from './store';

/**
 * The installations' keyset pages (issue 24): the two plans of profiles/store.ts (a small
 * environment through its index, a large one along the primary key) answer the same rows, in
 * id order, of the environment only.
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
  it('both plans walk the environment in id order, `after` excluded, size+1 rows at most', async () => {
    const store = createProfileStore(h.sql);
    for (const large of [false, true]) {
      const seen: string[] = [];
      let after = '';
      for (;;) {
        const rows = await store.installationPage(envId, after, 3, large);
        expect(rows.length).toBeLessThanOrEqual(3);
        seen.push(...rows.map((r) => r.id));
        if (rows.length < 3) break;
        after = rows[rows.length - 1].id;
      }
      expect([large, seen]).toEqual([large, ids]);
      expect((await store.installationPage(envId, ids[3], 100, large)).map((r) => r.id)).toEqual(ids.slice(4));
    }
    expect(await store.isLargeEnvironment(envId)).toBe(false);
  });

  it('the service pages with hasMore, never a push token', async () => {
    const page = await h.services.engage.profiles.installationPage(envId, '', 4);
    expect(page.hasMore).toBe(true);
    expect(page.items.map((i) => i.id)).toEqual(ids.slice(0, 4));
    expect(page.items[0]).not.toHaveProperty('pushToken');
    expect(page.items[0].pushTokenHeld).toBe(false);
  });
});
