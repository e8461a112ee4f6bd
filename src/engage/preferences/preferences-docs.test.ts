import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsExample } from '../../../test/helpers/docs-examples';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { ACTOR } from '../../../test/fixtures/actor';
import { checkListFile } from './schemas';
import { pushChannelViolation } from '../push-channels/schemas';

/** docs/preferences.md's example files, read from the page: accepted as the page says. */
describe('docs/preferences.md: the example files', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.services.engage.environments.create({ name: 'shop' }, ACTOR);
    await h.services.engage.environments.createApp({ environment: 'shop', platform: 'ANDROID', name: 'shop-android' }, ACTOR);
    await h.services.engage.environments.createApp({ environment: 'shop', platform: 'IOS', name: 'shop-ios' }, ACTOR);
  });
  afterAll(() => h.close());

  it('the list file conforms and is created as shown', async () => {
    const file = docsExample('preferences.md', 'order-updates.json');
    expect(checkListFile(file)).toBeNull();
    expect(await h.services.engage.lists.create({ environment: 'shop', file }, ACTOR)).toMatchObject({ ...file, configurationManaged: false });
  });

  it('the channel and the category conform, each for its platform’s app', async () => {
    const channel = docsExample('preferences.md', 'orders-channel.json');
    const category = docsExample('preferences.md', 'order-actions.json');
    expect([pushChannelViolation(channel), pushChannelViolation(category)]).toEqual([null, null]);
    expect(await h.services.engage.pushChannels.create({ environment: 'shop', app: 'shop-android', file: channel }, ACTOR)).toMatchObject(channel);
    expect(await h.services.engage.pushChannels.create({ environment: 'shop', app: 'shop-ios', file: category }, ACTOR)).toMatchObject(category);
    await expect(h.services.engage.pushChannels.create({ environment: 'shop', app: 'shop-ios', file: channel }, ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
