import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bind, bootstrap, ingest, op, setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { ALL_MODULES, applySync, flag, putChannel, putFlag, putList, sync, syncRequest } from '../../../test/fixtures/sync';
import { createCursorCodec } from './cursor';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const keys = (a: { documents: { module: string; key: string }[] }) => a.documents.map((d) => `${d.module} ${d.key}`);
const news = { key: 'news', displayName: 'News', channels: ['PUSH' as const, 'EMAIL' as const], defaultSubscribed: true, critical: false };

describe('POST /v1/sdk/sync', () => {
  it('answers a full snapshot without a cursor: every module’s documents in a stable order, revisions from the three sources', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    await putFlag(h, e, flag('checkout.v2'));
    await putFlag(h, e, flag('banner', { kind: 'STRING', variants: { a: 'hello', b: 'bye' }, defaultVariant: 'a', offVariant: 'b' }));
    await putList(h, e, news);
    await putChannel(h, e, env.app.id, { key: 'orders', kind: 'IOS_CATEGORY', actions: [{ id: 'track', title: 'Track' }] });
    const s = await bootstrap(h, env.app.appKey);
    const a = await sync(h, s);
    expect(a.fullSnapshot).toBe(true);
    expect(a.generation).toBe(0);
    expect(a.tombstones).toEqual([]);
    expect(a.refreshAfterSeconds).toBe(900);
    expect(keys(a)).toEqual([
      'FEATURE_FLAGS banner',
      'FEATURE_FLAGS checkout.v2',
      'PREFERENCES list/news',
      'PREFERENCES quiet-hours',
      'PUSH category/orders',
      'PUSH push/state',
    ]);
    const doc = (k: string) => a.documents.find((d) => `${d.module} ${d.key}` === k)!;
    expect(doc('FEATURE_FLAGS banner').payload).toEqual({ variantKey: 'a', value: 'hello', reason: 'STATIC' });
    expect(doc('FEATURE_FLAGS banner').revision).toBe(2);
    expect(doc('PREFERENCES list/news').payload).toEqual({
      key: 'news',
      displayName: 'News',
      channels: ['PUSH', 'EMAIL'],
      critical: false,
      defaultSubscribed: true,
      installation: { subscribed: true, chosen: false },
      profile: { PUSH: { subscribed: true, chosen: false }, EMAIL: { subscribed: true, chosen: false } },
    });
    expect(doc('PREFERENCES quiet-hours').payload).toEqual({ quietHours: null, timeZone: 'Europe/Paris' });
    expect(doc('PUSH push/state').payload).toEqual({ subscription: 'OPTED_IN', permission: 'NOT_DETERMINED', tokenHeld: false, privacy: 'OPTED_IN' });
    expect(doc('PUSH category/orders').payload).toEqual({ key: 'orders', kind: 'IOS_CATEGORY', actions: [{ id: 'track', title: 'Track' }] });
    // The response's revision is the definitions revision (4) plus the installation's and profile's (0).
    expect(a.revision).toBe(4);
    for (const d of a.documents) expect(d.revision).toBeLessThanOrEqual(a.revision);
    // Asking again without a cursor gives the same documents.
    expect((await sync(h, s)).documents).toEqual(a.documents);
  });

  it('answers an empty delta when nothing changed, and only what changed after an edit, with tombstones for what is gone', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    await putFlag(h, e, flag('a'));
    await putFlag(h, e, flag('b'));
    await putList(h, e, news);
    const s = await bootstrap(h, env.app.appKey);
    const first = await sync(h, s);
    const same = await sync(h, s, first.cursor);
    expect(same).toMatchObject({ fullSnapshot: false, documents: [], tombstones: [], revision: first.revision, generation: 0 });

    await putFlag(h, e, flag('a', { defaultVariant: 'on' }));
    const delta = await sync(h, s, same.cursor);
    expect(delta.fullSnapshot).toBe(false);
    expect(keys(delta)).toEqual(['FEATURE_FLAGS a']);
    expect(delta.documents[0].payload).toMatchObject({ variantKey: 'on', value: true });
    expect(delta.revision).toBe(first.revision + 1);

    await putFlag(h, e, flag('b', { status: 'ARCHIVED' }));
    await putList(h, e, news, true);
    const gone = await sync(h, s, delta.cursor);
    expect(gone.documents).toEqual([]);
    expect(gone.tombstones).toEqual([
      { module: 'FEATURE_FLAGS', key: 'b', revision: first.revision + 2 },
      { module: 'PREFERENCES', key: 'list/news', revision: first.revision + 3 },
    ]);
    // The delta applied to what the first answer gave equals a fresh snapshot.
    const held = [first, delta, gone].reduce((m, a) => applySync(m, a), new Map<string, unknown>());
    expect(held).toEqual(applySync(new Map(), await sync(h, s)));
    // A cursor replayed (the client failed to apply the delta) gets the same delta again.
    const replay = await sync(h, s, delta.cursor);
    expect({ ...replay, serverTime: '', cursor: '' }).toEqual({ ...gone, serverTime: '', cursor: '' });
  });

  it('re-sends a flag whose rules read an attribute the installation changed, and no flag that does not read it', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    await putFlag(h, e, flag('vip', { rules: [{ conditions: [{ attribute: 'installation.attributes.tier', operator: 'equals', values: ['gold'] }], variant: 'on' }] }));
    await putFlag(h, e, flag('plain'));
    const s = await bootstrap(h, env.app.appKey);
    const first = await sync(h, s);
    await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { tier: 'gold' } })]);
    const delta = await sync(h, s, first.cursor);
    expect(keys(delta)).toEqual(['FEATURE_FLAGS vip', 'PREFERENCES quiet-hours', 'PUSH push/state']);
    expect(delta.documents[0].payload).toEqual({ variantKey: 'on', value: true, reason: 'TARGETING_MATCH' });
    expect(delta.revision).toBe(first.revision + 1);
    // Profile edits reach documents that read the profile only.
    await ingest(h, s, [op('PROFILE_TAGS_EDITED', { add: ['beta'] })]);
    expect(keys(await sync(h, s, delta.cursor))).toEqual(['PREFERENCES quiet-hours']);
  });

  it('refuses a tampered, foreign, truncated or unparseable cursor with 400 invalid_cursor, and answers a snapshot to another generation’s, other modules’ or a future cursor', async () => {
    const env = await setupEnvironment(h);
    await putFlag(h, env.environment.id, flag('a'));
    const [s, other] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    const a = await sync(h, s);
    const flip = (c: string, i: number) => c.slice(0, i) + (c[i] === 'A' ? 'B' : 'A') + c.slice(i + 1);
    const foreign = createCursorCodec(Buffer.alloc(32, 9)).encode({ installationId: s.installationId, generation: 0n, modules: ['FEATURE_FLAGS'], revisions: [1n, 0n, 0n], issuedAt: new Date() });
    for (const cursor of [flip(a.cursor, 20), a.cursor.slice(0, -3), 'not a cursor', foreign, (await sync(h, other)).cursor]) {
      const res = await syncRequest(h, s, { cursor, modules: ALL_MODULES });
      expect(res.status, cursor).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_cursor');
    }
    // Other modules than the cursor's: a snapshot of the ones asked for.
    const flagsOnly = await sync(h, s, a.cursor, ['FEATURE_FLAGS']);
    expect(flagsOnly.fullSnapshot).toBe(true);
    expect(keys(flagsOnly)).toEqual(['FEATURE_FLAGS a']);
    // After a binding transition: a snapshot for the new generation.
    await bind(h, env.accessKey, s, 'user-1');
    const bound = await sync(h, s, a.cursor);
    expect(bound).toMatchObject({ fullSnapshot: true, generation: 1 });
    // A cursor ahead of the server (a database restored from a backup): a snapshot.
    const ahead = createCursorCodec(h.masterKey).encode({ installationId: s.installationId, generation: 1n, modules: ['FEATURE_FLAGS', 'PREFERENCES', 'PUSH'], revisions: [99n, 0n, 0n], issuedAt: new Date() });
    expect((await sync(h, s, ahead)).fullSnapshot).toBe(true);
  });

  it('refuses bad bodies with 400 invalid_request and an absent credential with 401', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey);
    for (const body of [{}, { modules: [] }, { modules: ['INBOX'] }, { modules: ['PUSH', 'PUSH'] }, { modules: ['PUSH'], extra: 1 }, { modules: ['PUSH'], cursor: 'x'.repeat(300) }]) {
      const res = await syncRequest(h, s, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_request');
    }
    expect((await h.request('/v1/sdk/sync', { method: 'POST', body: '{"modules":["PUSH"]}', headers: { 'content-type': 'application/json' } })).status).toBe(401);
  });

  it('reads the credential with the head (one statement): an unknown credential, a disabled app’s or environment’s are refused 401, with a cursor or without; enabled again, the cursor is still unchanged', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey);
    const first = await sync(h, s);
    const status = async (cursor?: string) => (await syncRequest(h, s, { modules: ALL_MODULES, ...(cursor ? { cursor } : {}) })).status;
    for (const credential of [`${s.credential}x`, 'svc_inst_', 'svc_rev_abc', '']) {
      expect((await syncRequest(h, { ...s, credential }, { modules: ALL_MODULES, cursor: first.cursor })).status, credential).toBe(401);
    }
    const apps = h.services.engage.environments;
    await apps.disableApp(env.app.id, env.environment.id, ACTOR);
    expect([await status(first.cursor), await status()]).toEqual([401, 401]);
    await apps.updateApp(env.environment.id, env.app.id, { status: 'ACTIVE' }, ACTOR);
    await apps.update(env.environment.id, { status: 'DISABLED' }, ACTOR);
    expect([await status(first.cursor), await status()]).toEqual([401, 401]);
    await apps.update(env.environment.id, { status: 'ACTIVE' }, ACTOR);
    const again = await sync(h, s, first.cursor);
    expect(again).toMatchObject({ fullSnapshot: false, documents: [], tombstones: [], cursor: first.cursor, revision: first.revision });
  });

  it('keeps another environment’s definitions out, and another app’s channels and flags', async () => {
    const [one, two] = [await setupEnvironment(h, 'one'), await setupEnvironment(h, 'two')];
    await putFlag(h, two.environment.id, flag('theirs'));
    const android = await h.services.engage.environments.createApp({ environment: one.environment.id, platform: 'ANDROID', name: 'one-android' }, ACTOR);
    await putFlag(h, one.environment.id, flag('android.only', { targetApps: [android.id] }));
    await putChannel(h, one.environment.id, android.id, { key: 'promo', kind: 'ANDROID_CHANNEL', name: 'Promotions', importance: 'LOW' });
    const s = await bootstrap(h, one.app.appKey);
    const a = await sync(h, s);
    expect(keys(a)).toEqual(['PREFERENCES quiet-hours', 'PUSH push/state']);
    // A flag that stops targeting the installation's app is a tombstone for it.
    await putFlag(h, one.environment.id, flag('everyone'));
    const b = await sync(h, s, a.cursor);
    await putFlag(h, one.environment.id, flag('everyone', { targetApps: [android.id] }));
    expect((await sync(h, s, b.cursor)).tombstones.map((t) => t.key)).toEqual(['everyone']);
  });
});

describe('a sign-in in the middle of an experiment', () => {
  it('keeps the variant a profile-sticky experiment served the anonymous installation; a profile-unit flag moves to the profile’s; a second device gets the profile’s', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const experiment = (bucketBy: 'profile' | 'profile-sticky') =>
      flag(`checkout.${bucketBy}`, {
        bucketBy,
        rules: [{ experiment: { experimentId: 'checkout-2026', variants: [{ variant: 'on', weight: 5_000 }, { variant: 'off', weight: 5_000 }], coverage: 10_000 } }],
      });
    await putFlag(h, e, experiment('profile'));
    await putFlag(h, e, experiment('profile-sticky'));
    const variantOf = (a: { documents: { key: string; payload: Record<string, unknown> }[] }, key: string) => a.documents.find((d) => d.key === key)!.payload;
    // Devices until one whose anonymous variant differs from what the profile hashes to.
    for (let attempt = 0; attempt < 40; attempt++) {
      const s = await bootstrap(h, env.app.appKey);
      const anonymous = await sync(h, s);
      const before = variantOf(anonymous, 'checkout.profile-sticky');
      expect(before).toMatchObject({ reason: 'SPLIT', experimentId: 'checkout-2026', revision: 1 });
      expect(variantOf(anonymous, 'checkout.profile')).toEqual(before);
      await bind(h, env.accessKey, s, `user-${attempt}`);
      const signedIn = await sync(h, s, anonymous.cursor);
      expect(signedIn.fullSnapshot).toBe(true);
      const profileVariant = variantOf(signedIn, 'checkout.profile');
      if (profileVariant.variantKey === before.variantKey) continue;
      // The sticky flag kept the anonymous variant; the profile flag jumped to the profile's.
      expect(variantOf(signedIn, 'checkout.profile-sticky')).toEqual(before);
      // A second device of the same person, never anonymous in the experiment, gets the profile's variant.
      const second = await bootstrap(h, env.app.appKey);
      await bind(h, env.accessKey, second, `user-${attempt}`);
      expect(variantOf(await sync(h, second), 'checkout.profile-sticky')).toEqual(profileVariant);
      return;
    }
    throw new Error('no device in 40 had an anonymous variant other than its profile’s (probability 2^-40)');
  });
});

describe('concurrent syncs while definitions change', () => {
  it('answers 50 concurrent syncs of one installation each from one consistent moment: the flags created so far, in order, under the matching revision', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const s = await bootstrap(h, env.app.appKey);
    const start = await sync(h, s, null, ['FEATURE_FLAGS']);
    const base = start.revision;
    const held0 = applySync(new Map(), start);
    // 20 flag creations one after the other; 50 syncs started among them, each running while the
    // next creations commit (half with the first cursor, half without).
    const pending: Promise<Awaited<ReturnType<typeof sync>>>[] = [];
    for (let i = 1; i <= 20; i++) {
      for (let j = 0; j < (i <= 10 ? 3 : 2); j++) pending.push(sync(h, s, pending.length % 2 === 0 ? start.cursor : null, ['FEATURE_FLAGS']));
      await h.services.engage.flags.create({ environment: e, file: flag(`w${String(i).padStart(2, '0')}`) }, ACTOR);
    }
    const answers = await Promise.all(pending);
    expect(answers).toHaveLength(50);
    for (const a of answers) {
      const held = [...applySync(held0, a).keys()].map((k) => k.replace('FEATURE_FLAGS ', ''));
      const k = a.revision - base;
      // Exactly the first k flags: never a later one without an earlier one, never a revision that does not match.
      expect(held).toEqual(Array.from({ length: k }, (_, i) => `w${String(i + 1).padStart(2, '0')}`));
    }
    // The syncs saw the writes at different moments, and a sync after them sees all.
    expect(new Set(answers.map((a) => a.revision)).size).toBeGreaterThan(2);
    expect((await sync(h, s, start.cursor, ['FEATURE_FLAGS'])).revision).toBe(base + 20);
  });
});

describe('refreshAfterSeconds', () => {
  it('is the environment’s setting (900 unless changed, 30 at least), and sooner when a scheduled change of a flag for the installation’s app is due', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const s = await bootstrap(h, env.app.appKey);
    expect((await sync(h, s)).refreshAfterSeconds).toBe(900);
    const settings = h.services.engage.syncSettings;
    expect(await settings.update(e, { refreshAfterSeconds: 600 }, ACTOR)).toMatchObject({ environmentId: e, refreshAfterSeconds: 600 });
    const first = await sync(h, s);
    expect(first.refreshAfterSeconds).toBe(600);
    // A setting is no definition: nothing is sent again.
    expect((await sync(h, s, first.cursor)).documents).toEqual([]);
    for (const bad of [29, 86_401, 60.5, '60', null]) await expect(settings.update(e, { refreshAfterSeconds: bad }, ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    expect((await settings.show(e)).refreshAfterSeconds).toBe(600);

    // A flag whose activation is scheduled in 2 minutes: the SDK is told to come back then.
    await h.services.engage.flags.create({ environment: e, file: flag('launch') }, ACTOR);
    const inTwoMinutes = new Date(h.clock.now().getTime() + 120_000).toISOString();
    await h.services.engage.flagSchedules.schedule(e, 'launch', { at: inTwoMinutes, definition: flag('launch', { defaultVariant: 'on' }) }, ACTOR);
    expect((await sync(h, s)).refreshAfterSeconds).toBe(120);
    // Never under 30 s, even when the change is due in 5.
    await h.services.engage.flagSchedules.schedule(e, 'launch', { at: new Date(h.clock.now().getTime() + 5_000).toISOString(), definition: flag('launch', { defaultVariant: 'off' }) }, ACTOR);
    h.clock.advance(6);
    expect((await sync(h, s)).refreshAfterSeconds).toBe(30);
  });
});

describe('what the sync reads of an installation is bounded', () => {
  it('reads the first 1,000 attributes in key order: an installation holding 1,600 keys syncs, and a rule on a key beyond the first 1,000 does not match', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    await putFlag(h, e, flag('early', { rules: [{ conditions: [{ attribute: 'installation.attributes.k0001', operator: 'exists' }], variant: 'on' }] }));
    await putFlag(h, e, flag('late', { rules: [{ conditions: [{ attribute: 'installation.attributes.k1500', operator: 'exists' }], variant: 'on' }] }));
    const s = await bootstrap(h, env.app.appKey);
    for (let b = 0; b < 5; b++) {
      const set = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${String(b * 200 + i).padStart(4, '0')}`, i]));
      await ingest(h, s, [op('INSTALLATION_ATTRIBUTES_EDITED', { set })]);
    }
    // Ingest stops at 1,000 keys (key-cap.test.ts); more can still be held (rows from before the cap,
    // concurrent batches at the edge): k0000..k0599 copied as k1000..k1599.
    await h.sql.run(
      `INSERT INTO installation_attributes (installation_id, key, value, ms, op)
       SELECT installation_id, 'k1' || substr(key, 3), value, ms, op FROM installation_attributes WHERE installation_id = ? AND key < 'k0600'`,
      [s.installationId],
    );
    expect(Number((await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM installation_attributes WHERE installation_id = ?', [s.installationId]))!.n)).toBe(1_600);
    const a = await sync(h, s, null, ['FEATURE_FLAGS']);
    expect(Object.fromEntries(a.documents.map((d) => [d.key, d.payload.variantKey]))).toEqual({ early: 'on', late: 'off' });
  });
});
