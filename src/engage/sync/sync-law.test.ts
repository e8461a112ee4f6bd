/**
 * The law of issue 26 (protocol point 3), as a property: applying a delta to the state of its
 * cursor gives the same documents, with the same payloads, as a full snapshot of the same moment.
 * A seeded random sequence of definition edits, attribute, tag and subscription operations,
 * push state changes, binding transitions, tombstone horizons raised, in-app messages (published,
 * edited, paused, archived; audiences, schedule windows, frequency caps reached by impressions, variants),
 * the clock moving on, and syncs with no cursor,
 * the last cursor, an older one and one of an earlier generation; after every sync the client's
 * state is compared with a fresh snapshot. Both engines (ENGAGE_TEST_ENGINE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bind, bootstrap, ingest, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { ALL_MODULES, applySync, flag, putChannel, putFlag, putList, sync, type SyncAnswer } from '../../../test/fixtures/sync';
import type { FlagDefinition, FlagRule } from '../flags/schemas';
import type { MessageDefinition } from '../in-app/schemas';
import { raiseHorizonIn } from '../definitions/service';

const STEPS = Number(process.env.SYNC_LAW_STEPS ?? 10_000);
const SEED = Number(process.env.SYNC_LAW_SEED ?? 20261126);

function prng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

interface Client {
  session: Session;
  generation: number;
  /** Every answer it applied, with what it then held: the cursors it may send again. */
  history: { cursor: string; generation: number; modules: string[]; held: Map<string, unknown> }[];
}

const FLAG_KEYS = ['f.tier', 'f.tags', 'f.age', 'f.subs', 'f.version', 'f.bound', 'f.experiment', 'f.rollout', 'f.plain', 'f.ext'];
const LISTS = ['news', 'promo', 'alerts'];
const MODULE_SETS = [ALL_MODULES, ['FEATURE_FLAGS'], ['PREFERENCES', 'PUSH'], ['FEATURE_FLAGS', 'IN_APP', 'PREFERENCES', 'PUSH'], ['IN_APP']];
const MESSAGE_KEYS = ['m.a', 'm.b', 'm.c', 'm.d', 'm.e'];

describe('the sync law: a delta applied to its cursor’s state equals the snapshot of the same moment', () => {
  it(`holds over ${STEPS} random steps (seed ${SEED})`, { timeout: 900_000 }, async () => {
    const r = prng(SEED);
    const env = await setupEnvironment(h, 'law');
    const e = env.environment.id;
    const android = await h.services.engage.environments.createApp({ environment: e, platform: 'ANDROID', name: 'law-android' }, ACTOR);
    const apps = [env.app.id, android.id];
    const accessKey = (await h.services.engage.environments.createAccessKey({ environment: e, apps }, ACTOR)).key;
    const clients: Client[] = [];
    for (const [appKey, platform] of [[env.app.appKey, 'IOS'], [env.app.appKey, 'IOS'], [android.appKey, 'ANDROID']]) {
      clients.push({ session: await bootstrap(h, appKey, { platform }), generation: 0, history: [] });
    }

    const rule = (): FlagRule => {
      const conditions = r.pick([
        [{ attribute: 'installation.attributes.tier', operator: 'equals', values: [r.pick(['gold', 'silver'])] }],
        [{ attribute: 'profile.tags', operator: 'contains', values: ['beta'] }],
        [{ attribute: 'profile.attributes.age', operator: 'gt', values: [30] }],
        [{ attribute: 'installation.subscriptions', operator: 'contains', values: ['news'], negate: r.next() < 0.5 }],
        [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }],
        [{ attribute: 'profile', operator: 'exists' }],
        [{ attribute: 'profile.externalId', operator: 'in', values: ['u-1'] }],
        [],
      ] as FlagRule['conditions'][]);
      const outcome = r.int(3);
      if (outcome === 0) return { conditions, variant: r.pick(['on', 'off']) };
      const w = r.int(10_001);
      const variants = [{ variant: 'on', weight: w }, { variant: 'off', weight: 10_000 - w }];
      if (outcome === 1) return { conditions, rollout: { variants } };
      return { conditions, experiment: { experimentId: `exp-${r.int(3)}`, variants, coverage: r.int(10_001) } };
    };
    const randomFlag = (key: string): FlagDefinition =>
      flag(key, {
        status: r.next() < 0.15 ? 'ARCHIVED' : 'ACTIVE',
        defaultVariant: r.pick(['on', 'off']),
        bucketBy: r.pick(['installation', 'profile', 'profile-sticky'] as const),
        targetApps: r.next() < 0.2 ? [r.pick(apps)] : undefined,
        rules: Array.from({ length: r.int(3) }, rule),
      });

    const inApp = h.services.engage.inApp;
    const messages = new Map<string, { id: string; variants: (string | null)[] }>();
    const at = (seconds: number) => new Date(h.clock.now().getTime() + seconds * 1000).toISOString();
    const layout = (title: string) => ({ title, body: 'b' });
    const randomMessage = (key: string): MessageDefinition => {
      const variants = r.next() < 0.3 ? [{ key: 'A', weight: 5_000, content: { en: layout('A') } }, { key: 'B', weight: 5_000, content: { en: layout('B') } }] : undefined;
      const start = r.int(300) - 100;
      return {
        key,
        triggers: [{ type: 'APP_OPEN' }],
        defaultLocale: 'en',
        ...(variants ? { variants } : { content: r.next() < 0.7 ? { en: layout(`T${r.int(9)}`) } : { en: layout('E'), fr: layout('F') } }),
        ...(r.next() < 0.3 ? { audience: rule().conditions } : {}),
        ...(r.next() < 0.5 ? { schedule: { startsAt: at(start), endsAt: at(start + 1 + r.int(300)) } } : {}),
        ...(r.next() < 0.5 ? { frequencyCap: { impressions: 1 + r.int(2), periodSeconds: 60 + r.int(180) } } : {}),
        ...(r.next() < 0.2 ? { targetApps: [r.pick(apps)] } : {}),
      };
    };
    const editMessage = async (key: string) => {
      const held = messages.get(key);
      const choice = r.int(10);
      try {
        if (!held) {
          const def = randomMessage(key);
          const v = await inApp.create({ environment: e, file: def }, ACTOR);
          messages.set(key, { id: v.id, variants: def.variants ? def.variants.map((x) => x.key) : [null] });
          if (choice < 8) await inApp.publish(e, key, ACTOR);
        } else if (choice < 6) {
          const def = randomMessage(key);
          await inApp.update({ environment: e, key, file: def }, ACTOR);
          await inApp.publish(e, key, ACTOR);
          held.variants = def.variants ? def.variants.map((x) => x.key) : [null];
        } else if (choice < 8) await inApp.pause(e, key, ACTOR);
        else if (choice < 9) await inApp.publish(e, key, ACTOR);
        else await inApp.archive(e, key, ACTOR);
      } catch (err) {
        // An archived message takes no more edits; pausing needs an ACTIVE one.
        if ((err as { code?: string }).code !== 'message_status_conflict') throw err;
      }
    };

    let syncs = 0;
    let deltas = 0;
    for (let step = 0; step < STEPS; step++) {
      const c = r.pick(clients);
      const kind = r.int(100);
      const gen = { generation: c.generation };
      if (kind < 12) {
        await putFlag(h, e, randomFlag(r.pick(FLAG_KEYS)));
      } else if (kind < 16) {
        const key = r.pick(LISTS);
        await putList(h, e, { key, displayName: key, channels: r.next() < 0.5 ? ['PUSH'] : ['PUSH', 'EMAIL'], defaultSubscribed: r.next() < 0.5, critical: r.next() < 0.2 }, r.next() < 0.25);
      } else if (kind < 18) {
        const app = r.int(2);
        const key = r.pick(['a', 'b']);
        const def = app === 0 ? { key, kind: 'IOS_CATEGORY' as const, actions: [{ id: 'x', title: `T${r.int(9)}` }] } : { key, kind: 'ANDROID_CHANNEL' as const, name: `N${r.int(9)}`, importance: 'LOW' as const };
        await putChannel(h, e, apps[app], def, r.next() < 0.25);
      } else if (kind < 28) {
        await ingest(h, c.session, [op('INSTALLATION_ATTRIBUTES_EDITED', r.next() < 0.7 ? { set: { tier: r.pick(['gold', 'silver', 3]) } } : { remove: ['tier'] }, gen)]);
      } else if (kind < 34) {
        await ingest(h, c.session, [op('PROFILE_TAGS_EDITED', r.next() < 0.5 ? { add: ['beta'] } : { remove: ['beta'] }, gen)]);
      } else if (kind < 40) {
        const set = r.next() < 0.5 ? { age: r.int(60) } : { quiet_hours: r.pick([{ start: '22:00', end: '07:00' }, { start: '25:00', end: '07:00' }, 'none']), time_zone: r.pick(['Europe/Berlin', 'Nowhere/City']) };
        await ingest(h, c.session, [op('PROFILE_ATTRIBUTES_EDITED', { set }, gen)]);
      } else if (kind < 45) {
        await ingest(h, c.session, [op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: r.pick(LISTS), subscribed: r.next() < 0.5 }] }, gen)]);
      } else if (kind < 50) {
        await ingest(h, c.session, [op('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: r.pick(LISTS), channel: r.pick(['PUSH', 'EMAIL']), subscribed: r.next() < 0.5 }] }, gen)]);
      } else if (kind < 53) {
        await ingest(h, c.session, [op(r.pick(['PUSH_SUBSCRIPTION_SET', 'PUSH_PERMISSION_SET']), { state: r.pick(['OPTED_IN', 'OPTED_OUT']) === 'OPTED_IN' ? 'OPTED_IN' : 'OPTED_OUT' }, gen)].map((o) =>
          o.type === 'PUSH_PERMISSION_SET' ? { ...o, payload: { state: r.pick(['AUTHORIZED', 'DENIED']) } } : o,
        ));
      } else if (kind < 57) {
        c.generation = await bind(h, accessKey, c.session, r.next() < 0.7 ? r.pick(['u-1', 'u-2']) : null);
      } else if (kind < 58) {
        const rev = await h.sql.get<{ revision: number }>('SELECT revision FROM sync_environments WHERE environment_id = ?', [e]);
        await h.services.store.tx((s) => raiseHorizonIn(s, e, Number(rev?.revision ?? 0)));
      } else if (kind < 60) {
        await editMessage(r.pick(MESSAGE_KEYS));
      } else if (kind < 63) {
        const key = r.pick(MESSAGE_KEYS);
        const m = messages.get(key);
        if (m) {
          const payload = { experienceId: m.id, messageId: key, variantId: r.pick(m.variants), type: r.next() < 0.8 ? 'IMPRESSION' : 'CLICK' };
          await ingest(h, c.session, [op('INTERACTION_TRACKED', payload, { ...gen, occurredAt: h.clock.now().toISOString() })]);
        }
      } else if (kind < 66) {
        h.clock.advance(r.int(200));
      } else {
        // A sync: no cursor, the last one, or an older one (perhaps of an earlier generation).
        syncs++;
        const choice = r.int(10);
        const past = c.history.length === 0 || choice < 1 ? undefined : choice < 7 ? c.history[c.history.length - 1] : r.pick(c.history);
        const modules = past && r.next() < 0.9 ? past.modules : r.pick(MODULE_SETS);
        const answer: SyncAnswer = await sync(h, c.session, past?.cursor ?? null, modules);
        const held = applySync(past?.held ?? new Map(), answer);
        const fresh = await sync(h, c.session, null, modules);
        expect(fresh.fullSnapshot).toBe(true);
        const expected = applySync(new Map(), fresh);
        if (!answer.fullSnapshot) deltas++;
        expect(Object.fromEntries(held), `step ${step}: ${answer.fullSnapshot ? 'snapshot' : 'delta'} from ${past ? 'a cursor' : 'nothing'}`).toEqual(Object.fromEntries(expected));
        expect(answer.generation).toBe(c.generation);
        expect(answer.revision).toBe(fresh.revision);
        // A delta never answers a generation other than the cursor's; a cursor of another generation gets a snapshot.
        if (past && past.generation !== c.generation) expect(answer.fullSnapshot).toBe(true);
        c.history.push({ cursor: answer.cursor, generation: answer.generation, modules, held });
        if (c.history.length > 12) c.history.splice(0, c.history.length - 12);
      }
    }
    // The sequence exercised both paths.
    expect(syncs).toBeGreaterThan(STEPS / 4);
    expect(deltas).toBeGreaterThan(syncs / 3);
  });
});
