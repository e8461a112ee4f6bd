import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { applyAll, applyFileProblemAll, type ApplyFile } from '../../apply';

/**
 * `engage apply` declares subscription lists (per environment) and push channels/categories (per
 * app) (issue 26): planned, created and marked configuration-managed, replaced when the file
 * differs, unchanged when it does not (a template naming a declared list included), and refused
 * with the place in the file when a channel's kind is not its app's.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(() => h.close());

const channel = { key: 'orders', kind: 'ANDROID_CHANNEL', name: 'Orders', importance: 'HIGH' };
const category = { key: 'order-actions', kind: 'IOS_CATEGORY', actions: [{ id: 'track', title: 'Track', foreground: true }] };
const file = (over: { listName?: string; importance?: string } = {}) =>
  ({
    version: 1,
    environments: [
      {
        name: 'shop',
        apps: [
          { name: 'droid', platform: 'ANDROID', pushChannels: [{ ...channel, importance: over.importance ?? 'HIGH' }] },
          { name: 'phone', platform: 'IOS', pushChannels: [category] },
        ],
        lists: [{ key: 'news', displayName: over.listName ?? 'News', channels: ['PUSH'] }],
        templates: [{ key: 'news.weekly', definition: { apps: ['phone'], defaultLocale: 'en', localizations: { en: { title: 'News', body: 'This week' } }, list: 'news' } }],
      },
    ],
  }) as unknown as ApplyFile;
const run = (f: ApplyFile, dryRun = false) => applyAll(h.services, f, { dryRun, env: {}, readFile: () => '', actor: ACTOR });
const stepsOf = (r: Awaited<ReturnType<typeof run>>, kinds: string[]) =>
  r.steps.filter((s) => kinds.includes(s.kind)).map((s) => `${s.action} ${s.kind} ${'key' in s ? s.key : ''} ${'changes' in s ? (s.changes as string[]).join(',') : ''}`.trim());

describe('engage apply: lists and push channels', () => {
  it('plans, creates and marks them; then nothing changes; a changed file replaces the definition', async () => {
    expect(applyFileProblemAll(file())).toBeNull();
    const plan = await run(file(), true);
    expect(stepsOf(plan, ['list', 'push_channel'])).toEqual(['create list news', 'create push_channel droid/orders', 'create push_channel phone/order-actions']);
    const done = await run(file());
    expect(done.changed).toBe(true);
    const lists = h.services.engage.lists;
    const env = await h.services.engage.environments.resolve('shop');
    expect(await lists.show('shop', 'news')).toMatchObject({ key: 'news', displayName: 'News', defaultSubscribed: true, critical: false, configurationManaged: true });
    expect(await h.services.engage.pushChannels.show('shop', 'droid', 'orders')).toMatchObject({ ...channel, configurationManaged: true });
    expect(await h.services.engage.pushChannels.show('shop', 'phone', 'order-actions')).toMatchObject({ ...category, configurationManaged: true });
    expect((await h.services.engage.messaging.templates.show('shop', 'news.weekly')).published).toMatchObject({ list: 'news' });
    await expect(lists.update({ environment: 'shop', key: 'news', file: { displayName: 'X', channels: ['PUSH'] } }, ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(h.services.engage.pushChannels.delete('shop', 'droid', 'orders', ACTOR)).rejects.toMatchObject({ code: 'configuration_managed' });

    const again = await run(file());
    expect(again.changed).toBe(false);
    expect(stepsOf(again, ['list', 'push_channel', 'template'])).toEqual(['unchanged list news', 'unchanged push_channel droid/orders', 'unchanged push_channel phone/order-actions', 'unchanged template news.weekly']);

    const before = (await lists.show('shop', 'news')).revision;
    const changed = await run(file({ listName: 'Weekly news', importance: 'LOW' }));
    expect(stepsOf(changed, ['list', 'push_channel'])).toEqual(['update list news definition', 'update push_channel droid/orders definition', 'unchanged push_channel phone/order-actions']);
    const after = await lists.show('shop', 'news');
    expect(after).toMatchObject({ displayName: 'Weekly news', configurationManaged: true });
    expect(after.revision).toBeGreaterThan(before);
    expect(await h.services.engage.pushChannels.show('shop', 'droid', 'orders')).toMatchObject({ importance: 'LOW' });
    expect(env.id).toBe(after.environmentId);
  });

  it('adopts a list the API created; refuses a channel of the wrong kind, a bad channel and a repeated key with their places', async () => {
    await h.services.engage.environments.create({ name: 'adopt' }, ACTOR);
    await h.services.engage.lists.create({ environment: 'adopt', file: { key: 'mine', displayName: 'Mine', channels: ['EMAIL'] } }, ACTOR);
    const adopt = { version: 1, environments: [{ name: 'adopt', lists: [{ key: 'mine', displayName: 'Mine', channels: ['EMAIL'] }] }] } as unknown as ApplyFile;
    expect(stepsOf(await run(adopt), ['list'])).toEqual(['update list mine adopt']);
    expect((await h.services.engage.lists.show('adopt', 'mine')).configurationManaged).toBe(true);

    const bad = (apps: unknown[], lists: unknown[] = []) => applyFileProblemAll({ version: 1, environments: [{ name: 'x', apps, lists }] });
    expect(bad([{ name: 'p', platform: 'IOS', pushChannels: [channel] }])).toBe('environments[0].apps[0].pushChannels[0].kind: app p is IOS: it takes IOS_CATEGORY');
    expect(bad([{ name: 'd', platform: 'ANDROID', pushChannels: [{ ...channel, importance: 'LOUD' }] }])).toMatch(/^environments\[0\]\.apps\[0\]\.pushChannels\[0\]\.importance: /);
    expect(bad([{ name: 'd', platform: 'ANDROID', pushChannels: [channel, channel] }])).toBe('environments[0].apps[0].pushChannels[1].key: duplicate orders');
    expect(bad([], [{ key: 'a', displayName: 'A', channels: ['PUSH'] }, { key: 'a', displayName: 'B', channels: ['PUSH'] }])).toBe('environments[0].lists[1].key: duplicate a');
    expect(bad([], [{ key: 'a', displayName: 'A', channels: [] }])).toMatch(/channels/);
  });
});
