import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { bearer, json } from '../../../test/fixtures/engage';
import { createPushWorld, device, type PushWorld } from '../../../test/fixtures/messaging';
import { APP_IDS_TTL_MS, appIdsCache } from './entry';

/** What automations keep in memory for speed (issue 28 "Performance"), and when it is read again. */
describe('appIdsCache: an environment’s app ids', () => {
  const counted = () => {
    const state = { reads: 0, apps: [{ id: 'a1' }], fail: false };
    const list = async (env: string) => {
      state.reads++;
      if (state.fail) throw new Error(`no apps for ${env}`);
      return [...state.apps];
    };
    return { state, list };
  };

  it('reads once per environment within the time kept, again after it, at once when asked fresh', async () => {
    const { state, list } = counted();
    let now = 0;
    const ids = appIdsCache(list, 1_000, () => now);
    expect(await ids('e1')).toEqual(['a1']);
    state.apps.push({ id: 'a2' });
    now = 999;
    expect(await ids('e1')).toEqual(['a1']);
    expect(state.reads).toBe(1);
    expect(await ids('e2')).toEqual(['a1', 'a2']);
    expect(state.reads).toBe(2);
    now = 1_000;
    expect(await ids('e1')).toEqual(['a1', 'a2']);
    expect(state.reads).toBe(3);
    state.apps.pop();
    expect(await ids('e1', { fresh: true })).toEqual(['a1']);
    expect(await ids('e1')).toEqual(['a1']);
    expect(state.reads).toBe(4);
  });

  it('concurrent callers share one read; a failed read is not kept', async () => {
    const { state, list } = counted();
    const ids = appIdsCache(list, 1_000, () => 0);
    expect(await Promise.all([ids('e'), ids('e'), ids('e')])).toEqual([['a1'], ['a1'], ['a1']]);
    expect(state.reads).toBe(1);
    const failing = appIdsCache(list, 1_000, () => 0);
    state.fail = true;
    await expect(failing('e')).rejects.toThrow('no apps for e');
    state.fail = false;
    expect(await failing('e')).toEqual(['a1']);
    expect(state.reads).toBe(3);
  });
});

describe('the trigger with the app ids kept', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  }, 60_000);
  afterAll(async () => {
    await w?.close();
  });

  it('an app added after the list was read counts at once (a refusal reads it again); refused once a deletion is seen', async () => {
    const a = w.h.services.engage.automations;
    const created = await a.create({ environment: w.envId, file: { key: 'kept', name: 'Kept', entries: { api: true }, reentry: { mode: 'ALWAYS' }, start: 'bye', steps: { bye: { type: 'exit' } } } }, ACTOR);
    await a.publish(w.envId, 'kept', ACTOR);
    await device(w, { externalId: 'kept-1' });
    const profileId = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, 'kept-1'))!;
    const trigger = (key: string) => w.h.request(`/api/v1/environments/${w.envId}/automations/${created.automationApiKey}/trigger`, json({ profileId }, bearer(key)));
    // The list is read (and kept) by this trigger.
    expect((await trigger(w.accessKey)).status).toBe(202);
    const env = w.h.services.engage.environments;
    const added = await env.createApp({ environment: w.envId, platform: 'IOS', name: 'kept-added' }, ACTOR);
    const onlyAdded = await env.createAccessKey({ environment: w.envId, apps: [added.id] }, ACTOR);
    const r = await trigger(onlyAdded.key);
    expect(r.status).toBe(202);
    // Once the app is deleted, a key naming only it is refused, at the latest when the list kept has aged out.
    await env.deleteApp(w.envId, added.id, ACTOR);
    await new Promise((r) => setTimeout(r, APP_IDS_TTL_MS + 50));
    const refused = await trigger(onlyAdded.key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('automation_app_not_allowed');
  });
});
