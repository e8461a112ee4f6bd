import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bind, bootstrap, ingest, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { applySync, sync, type SyncAnswer } from '../../../test/fixtures/sync';
import type { MessageDefinition } from './schemas';

/** The IN_APP sync module (issue 27 "In-app messages" point 2) and INTERACTION_TRACKED counting, on the test engine. */
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const IN_APP = ['IN_APP'];
const layout = (title: string) => ({ title, body: `${title} body`, buttons: [{ label: 'Open', action: 'DEEP_LINK' as const, deepLink: 'shop://sale' }, { label: 'Later', action: 'DISMISS' as const }] });
const message = (key: string, over: Partial<MessageDefinition> = {}): MessageDefinition => ({
  key,
  triggers: [{ type: 'APP_OPEN' }, { type: 'EVENT', eventName: 'purchase', conditions: [{ property: 'amount', operator: 'gt', values: [10] }] }],
  defaultLocale: 'en',
  content: { en: layout('Sale'), fr: layout('Soldes') },
  ...over,
});
const docKeys = (a: SyncAnswer) => a.documents.map((d) => d.key);
const doc = (a: SyncAnswer, key: string) => a.documents.find((d) => d.key === key);
const now = () => h.clock.now().toISOString();

async function published(e: string, def: MessageDefinition) {
  await h.services.engage.inApp.create({ environment: e, file: def }, ACTOR);
  return (await h.services.engage.inApp.publish(e, def.key, ACTOR)).view;
}

async function interact(s: Session, experienceId: string, messageId: string, type: string, variantId: string | null = null) {
  const r = await ingest(h, s, [op('INTERACTION_TRACKED', { experienceId, messageId, variantId, type }, { occurredAt: now() })]);
  expect(r.results[0].status).toBe('ACCEPTED');
}

describe('the IN_APP module', () => {
  it('sends a published message display-ready for the installation’s locale, with its triggers and cap, never its audience; a draft never; the settings document always', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    await h.services.engage.inApp.create({ environment: e, file: message('draft-only') }, ACTOR);
    const m = await published(e, message('sale', { audience: [{ attribute: 'locale', operator: 'startsWith', values: ['fr'] }], priority: 5, frequencyCap: { impressions: 3, periodSeconds: 86_400 } }));
    const fr = await bootstrap(h, env.app.appKey, { locale: 'fr-CA' });
    const a = await sync(h, fr, null, IN_APP);
    expect(docKeys(a)).toEqual(['message/sale', 'settings']);
    expect(doc(a, 'settings')!.payload).toEqual({ minIntervalSeconds: 30 });
    expect(doc(a, 'message/sale')!.payload).toEqual({
      experienceId: m.id,
      messageId: 'sale',
      variantId: null,
      version: 1,
      priority: 5,
      triggers: message('sale').triggers,
      frequencyCap: { impressions: 3, periodSeconds: 86_400 },
      schedule: null,
      locale: 'fr',
      layout: layout('Soldes'),
    });
    expect(JSON.stringify(a)).not.toContain('startsWith');
    // Outside the audience: nothing.
    const en = await bootstrap(h, env.app.appKey, { locale: 'en-GB' });
    expect(docKeys(await sync(h, en, null, IN_APP))).toEqual(['settings']);
  });

  it('deltas: publish sends it, an unpublished edit changes nothing, pause and archive send tombstones, publish resumes; the minimum interval reaches the settings document', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const s = await bootstrap(h, env.app.appKey);
    let held = new Map<string, unknown>();
    const step = async (cursor: string | null) => {
      const a = await sync(h, s, cursor, IN_APP);
      held = applySync(held, a);
      // The law: the delta applied equals a fresh snapshot.
      expect(held).toEqual(applySync(new Map(), await sync(h, s, null, IN_APP)));
      return a;
    };
    let a = await step(null);
    await published(e, message('sale'));
    a = await step(a.cursor);
    expect(docKeys(a)).toEqual(['message/sale']);
    await h.services.engage.inApp.update({ environment: e, key: 'sale', file: message('sale', { content: { en: layout('Edited') } }) }, ACTOR);
    const same = await step(a.cursor);
    expect(same.documents).toEqual([]);
    expect(same.cursor).toBe(a.cursor);
    await h.services.engage.inApp.pause(e, 'sale', ACTOR);
    a = await step(a.cursor);
    expect(a.documents).toEqual([]);
    expect(a.tombstones.map((t) => t.key)).toEqual(['message/sale']);
    await h.services.engage.inApp.publish(e, 'sale', ACTOR);
    a = await step(a.cursor);
    expect((doc(a, 'message/sale')!.payload.layout as { title: string }).title).toBe('Edited');
    expect(doc(a, 'message/sale')!.payload.version).toBe(2);
    await h.services.engage.syncSettings.update(e, { inAppMinIntervalSeconds: 120 }, ACTOR);
    a = await step(a.cursor);
    expect(a.documents.map((d) => [d.key, d.payload])).toEqual([['settings', { minIntervalSeconds: 120 }]]);
    await h.services.engage.inApp.archive(e, 'sale', ACTOR);
    a = await step(a.cursor);
    expect(a.tombstones.map((t) => t.key)).toEqual(['message/sale']);
  });

  it('an audience on attributes and on the profile: a change of either sends the document or its tombstone', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    await published(e, message('vip', { audience: [{ attribute: 'installation.attributes.tier', operator: 'equals', values: ['gold'] }] }));
    await published(e, message('members', { audience: [{ attribute: 'profile.externalId', operator: 'exists' }] }));
    const s = await bootstrap(h, env.app.appKey);
    let a = await sync(h, s, null, IN_APP);
    expect(docKeys(a)).toEqual(['settings']);
    await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { tier: 'gold' } }, { occurredAt: now() })]);
    a = await sync(h, s, a.cursor, IN_APP);
    expect(docKeys(a)).toEqual(['message/vip']);
    h.clock.advance(1);
    await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { tier: 'silver' } }, { occurredAt: now() })]);
    a = await sync(h, s, a.cursor, IN_APP);
    expect(a.documents).toEqual([]);
    // A message the installation is not eligible for, whose sources moved, is tombstoned (it may have held it): members too.
    expect(a.tombstones.map((t) => t.key)).toEqual(['message/members', 'message/vip']);
    await bind(h, env.accessKey, s, 'user-1');
    a = await sync(h, s, a.cursor, IN_APP);
    expect(a.fullSnapshot).toBe(true);
    expect(docKeys(a)).toEqual(['message/members', 'settings']);
  });

  it('a schedule window: nothing before it opens (refreshAfterSeconds wakes the device when it does), the document once open, a tombstone once closed', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const at = (s: number) => new Date(h.clock.now().getTime() + s * 1000).toISOString();
    await published(e, message('flash', { schedule: { startsAt: at(120), endsAt: at(600) } }));
    const s = await bootstrap(h, env.app.appKey);
    let a = await sync(h, s, null, IN_APP);
    expect(docKeys(a)).toEqual(['settings']);
    expect(a.refreshAfterSeconds).toBe(120);
    h.clock.advance(60);
    const quiet = await sync(h, s, a.cursor, IN_APP);
    expect(quiet.documents).toEqual([]);
    expect(quiet.cursor).toBe(a.cursor);
    h.clock.advance(61);
    a = await sync(h, s, a.cursor, IN_APP);
    expect(docKeys(a)).toEqual(['message/flash']);
    expect(doc(a, 'message/flash')!.payload.schedule).toEqual({ startsAt: at(-1), endsAt: at(479) });
    expect(a.refreshAfterSeconds).toBe(479);
    h.clock.advance(480);
    a = await sync(h, s, a.cursor, IN_APP);
    expect(a.documents).toEqual([]);
    expect(a.tombstones.map((t) => t.key)).toEqual(['message/flash']);
    expect(a.refreshAfterSeconds).toBe(900);
  });

  it('a frequency cap: the impression that reaches it sends a tombstone at the next sync, the window’s end brings the message back', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const m = await published(e, message('nudge', { frequencyCap: { impressions: 2, periodSeconds: 3_600 } }));
    const s = await bootstrap(h, env.app.appKey);
    const other = await bootstrap(h, env.app.appKey);
    let a = await sync(h, s, null, IN_APP);
    expect(docKeys(a)).toEqual(['message/nudge', 'settings']);
    await interact(s, m.id, 'nudge', 'IMPRESSION');
    a = await sync(h, s, a.cursor, IN_APP);
    expect(a.tombstones).toEqual([]);
    h.clock.advance(10);
    await interact(s, m.id, 'nudge', 'IMPRESSION');
    a = await sync(h, s, a.cursor, IN_APP);
    expect(a.tombstones.map((t) => t.key)).toEqual(['message/nudge']);
    expect(a.refreshAfterSeconds).toBe(900);
    // Another installation is not capped.
    expect(docKeys(await sync(h, other, null, IN_APP))).toContain('message/nudge');
    expect(docKeys(await sync(h, s, null, IN_APP))).toEqual(['settings']);
    h.clock.advance(3_600);
    a = await sync(h, s, a.cursor, IN_APP);
    expect(docKeys(a)).toEqual(['message/nudge']);
    // The window starts again with the next impression.
    await interact(s, m.id, 'nudge', 'IMPRESSION');
    a = await sync(h, s, a.cursor, IN_APP);
    expect(a.tombstones).toEqual([]);
    const results = await h.services.engage.inApp.results(e, 'nudge');
    expect(results.variants).toEqual([expect.objectContaining({ variantId: null, totals: { IMPRESSION: 3, CLICK: 0, DISMISS: 0, CONVERSION: 0 } })]);
  });

  it('variants: each installation is bucketed into one, stably; interactions count per variant, and only those a published message could have produced', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const variants = [
      { key: 'A', weight: 5_000, content: { en: layout('Variant A') } },
      { key: 'B', weight: 5_000, content: { en: layout('Variant B') } },
    ];
    const m = await published(e, message('exp', { content: undefined, variants }));
    const seen = new Map<string, number>();
    const sessions: { s: Session; variant: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const s = await bootstrap(h, env.app.appKey);
      const first = doc(await sync(h, s, null, IN_APP), 'message/exp')!.payload;
      const again = doc(await sync(h, s, null, IN_APP), 'message/exp')!.payload;
      expect(again.variantId).toBe(first.variantId);
      expect((first.layout as { title: string }).title).toBe(`Variant ${first.variantId as string}`);
      seen.set(first.variantId as string, (seen.get(first.variantId as string) ?? 0) + 1);
      sessions.push({ s, variant: first.variantId as string });
    }
    expect([...seen.keys()].sort()).toEqual(['A', 'B']);
    const { s, variant } = sessions[0];
    await interact(s, m.id, 'exp', 'IMPRESSION', variant);
    await interact(s, m.id, 'exp', 'CLICK', variant);
    // Not counted: another message id, another key, a variant the message does not have, no variant.
    await interact(s, randomUUID(), 'exp', 'CLICK', variant);
    await interact(s, m.id, 'other', 'CLICK', variant);
    await interact(s, m.id, 'exp', 'CLICK', 'Z');
    await interact(s, m.id, 'exp', 'CLICK', null);
    const results = await h.services.engage.inApp.results(e, 'exp');
    const of = (v: string) => results.variants.find((x) => x.variantId === v)!.totals;
    expect(of(variant)).toEqual({ IMPRESSION: 1, CLICK: 1, DISMISS: 0, CONVERSION: 0 });
    expect(of(variant === 'A' ? 'B' : 'A')).toEqual({ IMPRESSION: 0, CLICK: 0, DISMISS: 0, CONVERSION: 0 });
    expect(results.variants.find((x) => x.variantId === variant)!.daily).toEqual([{ day: '2026-01-01', counts: { IMPRESSION: 1, CLICK: 1, DISMISS: 0, CONVERSION: 0 } }]);
  });

  it('isolation: another environment’s message is neither synced nor counted from this one', async () => {
    const a = await setupEnvironment(h, 'a');
    const b = await setupEnvironment(h, 'b');
    const m = await published(a.environment.id, message('only-a'));
    const s = await bootstrap(h, b.app.appKey);
    expect(docKeys(await sync(h, s, null, IN_APP))).toEqual(['settings']);
    await interact(s, m.id, 'only-a', 'CLICK');
    expect((await h.services.engage.inApp.results(a.environment.id, 'only-a')).variants[0].totals.CLICK).toBe(0);
  });
});
