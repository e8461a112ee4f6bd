import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bind, bootstrap, ingest, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { applyIn, lockStateIn, StateEffects } from './service';
import { createProfileStore } from './store';

let h: Harness;
let env: Awaited<ReturnType<typeof setupEnvironment>>;
let s: Session;
beforeEach(async () => {
  h = await createHarness();
  env = await setupEnvironment(h);
  s = await bootstrap(h, env.app.appKey);
});
afterEach(() => h.close());

const at = (sec: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, sec)).toISOString();
const profiles = () => h.services.engage.profiles;

describe('profile state (engage/profiles)', () => {
  it('snapshot: the state ingest wrote, of the installation and of the profile it is bound to', async () => {
    await bind(h, env.accessKey, s, 'user-7');
    const g = 1;
    const r = await ingest(h, s, [
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { theme: 'dark' } }, { generation: g, occurredAt: at(1) }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { plan: 'pro', seats: 3 } }, { generation: g, occurredAt: at(1) }),
      op('PROFILE_TAGS_EDITED', { add: ['vip', 'beta'] }, { generation: g, occurredAt: at(1) }),
      op('PROFILE_TAGS_EDITED', { remove: ['beta'] }, { generation: g, occurredAt: at(2) }),
      op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: true }] }, { generation: g, occurredAt: at(1) }),
      op('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'PUSH', subscribed: false }] }, { generation: g, occurredAt: at(1) }),
      op('PUSH_TOKEN_SET', { token: 'tok-1' }, { generation: g, occurredAt: at(1) }),
    ]);
    expect(r.results.map((x) => x.status)).toEqual(Array(7).fill('ACCEPTED'));

    const profileId = await profiles().findProfileByExternalId(env.environment.id, 'user-7');
    expect(profileId).toBeDefined();
    expect(await profiles().findProfileByExternalId(env.environment.id, 'nobody')).toBeUndefined();
    expect(await profiles().snapshot(env.environment.id, s.installationId)).toEqual({
      installation: {
        id: s.installationId,
        generation: 1,
        privacy: 'OPTED_IN',
        pushSubscription: expect.any(String),
        pushPermission: expect.any(String),
        pushToken: 'tok-1',
        attributes: { theme: 'dark' },
        subscriptions: { news: true },
      },
      profile: {
        id: profileId,
        externalId: 'user-7',
        attributes: { plan: 'pro', seats: 3 },
        tags: ['vip'],
        subscriptions: [{ list: 'news', channel: 'PUSH', subscribed: false }],
      },
    });
  });

  it('snapshot of no such installation (or another environment\'s) is undefined', async () => {
    expect(await profiles().snapshot(env.environment.id, randomUUID())).toBeUndefined();
    const other = await setupEnvironment(h, 'staging');
    expect(await profiles().snapshot(other.environment.id, s.installationId)).toBeUndefined();
  });

  it('applyIn: last-writer-wins against the stored rows, on (ms, op), and the installation state when given', async () => {
    const tx = { profiles: createProfileStore(h.sql) };
    const write = async (value: string, ms: number, opId: string) => {
      const e = new StateEffects();
      e.put('installationAttributes', [s.installationId, 'k', JSON.stringify(value), ms, opId]);
      await applyIn(tx, { environmentId: env.environment.id, installationId: s.installationId, at: at(0) }, e);
    };
    await write('b', 2000, 'b');
    await write('older', 1000, 'z'); // earlier: loses
    expect((await profiles().snapshot(env.environment.id, s.installationId))!.installation.attributes).toEqual({ k: 'b' });
    await write('tie-low', 2000, 'a'); // same ms, smaller op: loses
    await write('tie-high', 2000, 'c'); // same ms, greater op: wins
    expect((await profiles().snapshot(env.environment.id, s.installationId))!.installation.attributes).toEqual({ k: 'tie-high' });

    const state = (await lockStateIn(tx, env.environment.id, s.installationId))!;
    state.pushToken = { value: 'tok-2', ms: 3000, op: 'x' };
    await applyIn(tx, { environmentId: env.environment.id, installationId: s.installationId, at: at(3) }, new StateEffects(), state);
    expect((await profiles().snapshot(env.environment.id, s.installationId))!.installation.pushToken).toBe('tok-2');
  });
});
