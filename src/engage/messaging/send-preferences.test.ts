import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushWorld, deliveryRows, device, send, sendBody, templateFile, type PushWorld } from '../../../test/fixtures/messaging';
import { ingest, op, type Session } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';

/**
 * Transactional sends honour preferences (issue 26 PREFERENCES): a template's list (checked when
 * the file is saved; installation choices for INSTALLATION_ID recipients, the profile's PUSH
 * choice for profile recipients, defaultSubscribed without a choice, critical lists never
 * skipped) and the profile's quiet hours (normal priority deferred to their end, with the APNs
 * fake showing no attempt before it and one after; high priority not deferred; a TTL ending
 * first is not sent).
 */
let w: PushWorld;
let seq = 0;
/** Operations stamped one second apart, before the harness's clock (last-writer-wins by time). */
const at = () => new Date(Date.parse('2025-12-31T23:00:00Z') + ++seq * 1000).toISOString();
const edit = (s: Session, type: string, payload: unknown) => ingest(w.h, s, [op(type, payload, { generation: s.generation, occurredAt: at() })]);

beforeAll(async () => {
  w = await createPushWorld();
  const lists = w.h.services.engage.lists;
  await lists.create({ environment: w.envId, file: { key: 'news', displayName: 'News', channels: ['PUSH', 'EMAIL'] } }, ACTOR);
  await lists.create({ environment: w.envId, file: { key: 'promos', displayName: 'Promotions', channels: ['PUSH'], defaultSubscribed: false } }, ACTOR);
  await lists.create({ environment: w.envId, file: { key: 'security', displayName: 'Security', channels: ['PUSH'], critical: true } }, ACTOR);
  await lists.create({ environment: w.envId, file: { key: 'letters', displayName: 'Letters', channels: ['EMAIL'] } }, ACTOR);
  const templates = w.h.services.engage.messaging.templates;
  for (const [key, over] of [
    ['news.tpl', { list: 'news' }],
    ['promo.tpl', { list: 'promos' }],
    ['security.tpl', { list: 'security' }],
    ['quiet.tpl', { priority: 'normal', ttlSeconds: 86_400 }],
    ['quiet.short', { priority: 'normal', ttlSeconds: 3_600 }],
    ['quiet.high', { priority: 'high', ttlSeconds: 86_400 }],
  ] as const) {
    await templates.create({ environment: w.envId, file: templateFile({ key, ...over }) }, ACTOR);
    await templates.publish(w.envId, key, ACTOR);
  }
}, 60_000);
afterAll(() => w.close());

type Answer = { accepted: boolean; diagnostics: { installationId: string; code: string; deliveryId: string | null; deferredUntil?: string }[] };
async function sendTo(template: string, recipient: { type: string; value: string }): Promise<Answer> {
  const res = await send(w, sendBody(recipient), { template });
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json()) as Answer;
}
const codes = (a: Answer) => a.diagnostics.map((d) => d.code);

describe('a template names its list', () => {
  it('the list must exist in the environment and send on PUSH when the file is saved', async () => {
    const templates = w.h.services.engage.messaging.templates;
    await expect(templates.create({ environment: w.envId, file: templateFile({ key: 'x.1', list: 'nope' }) }, ACTOR)).rejects.toMatchObject({ code: 'invalid_request', message: 'list: no list nope in this environment' });
    await expect(templates.create({ environment: w.envId, file: templateFile({ key: 'x.2', list: 'letters' }) }, ACTOR)).rejects.toMatchObject({ message: 'list: list letters does not send on PUSH' });
    await expect(templates.create({ environment: w.envId, file: templateFile({ key: 'x.3', list: 'Not A Key' }) }, ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    // Another environment's list is not this one's.
    const other = await w.h.services.engage.environments.create({ name: 'elsewhere' }, ACTOR);
    await w.h.services.engage.lists.create({ environment: other.id, file: { key: 'theirs', displayName: 'Theirs', channels: ['PUSH'] } }, ACTOR);
    await expect(templates.create({ environment: w.envId, file: templateFile({ key: 'x.4', list: 'theirs' }) }, ACTOR)).rejects.toMatchObject({ message: 'list: no list theirs in this environment' });
  });

  it('an INSTALLATION_ID recipient: its own choice for the list, else the list’s default; a critical list is never skipped', async () => {
    const d = await device(w);
    const me = { type: 'INSTALLATION_ID', value: d.installationId };
    expect(codes(await sendTo('news.tpl', me))).toEqual(['TARGETED']);
    expect(codes(await sendTo('promo.tpl', me))).toEqual(['LIST_UNSUBSCRIBED']);
    await edit(d, 'INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: false }, { list: 'promos', subscribed: true }, { list: 'security', subscribed: false }] });
    const skipped = await sendTo('news.tpl', me);
    expect(skipped).toMatchObject({ accepted: false, diagnostics: [{ installationId: d.installationId, code: 'LIST_UNSUBSCRIBED', deliveryId: null }] });
    expect(codes(await sendTo('promo.tpl', me))).toEqual(['TARGETED']);
    expect(codes(await sendTo('security.tpl', me))).toEqual(['TARGETED']);
    expect(await deliveryRows(w, 'installation_id = ?', [d.installationId])).toHaveLength(3);
  });

  it('a profile recipient: the profile’s PUSH choice for the list (not its installations’ own), else the default', async () => {
    const externalId = `u-${crypto.randomUUID()}`;
    const ios = await device(w, { externalId });
    const android = await device(w, { platform: 'ANDROID', externalId });
    const them = { type: 'EXTERNAL_ID', value: externalId };
    // An installation's own choice does not speak for the profile.
    await edit(ios, 'INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: false }] });
    expect(codes(await sendTo('news.tpl', them))).toEqual(['TARGETED', 'TARGETED']);
    // An EMAIL choice does not either: sends are PUSH.
    await edit(ios, 'PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'EMAIL', subscribed: false }] });
    expect(codes(await sendTo('news.tpl', them))).toEqual(['TARGETED', 'TARGETED']);
    await edit(android, 'PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'PUSH', subscribed: false }, { list: 'security', channel: 'PUSH', subscribed: false }] });
    expect(codes(await sendTo('news.tpl', them))).toEqual(['LIST_UNSUBSCRIBED', 'LIST_UNSUBSCRIBED']);
    expect(codes(await sendTo('security.tpl', them))).toEqual(['TARGETED', 'TARGETED']);
    expect(codes(await sendTo('promo.tpl', them))).toEqual(['LIST_UNSUBSCRIBED', 'LIST_UNSUBSCRIBED']);
    const profileId = (await w.h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [ios.installationId]))!.p;
    expect(codes(await sendTo('news.tpl', { type: 'PROFILE', value: profileId }))).toEqual(['LIST_UNSUBSCRIBED', 'LIST_UNSUBSCRIBED']);
  });

  it('a list deleted since the template was saved holds nobody back', async () => {
    await w.h.services.engage.lists.create({ environment: w.envId, file: { key: 'gone', displayName: 'Gone', channels: ['PUSH'], defaultSubscribed: false } }, ACTOR);
    const templates = w.h.services.engage.messaging.templates;
    await templates.create({ environment: w.envId, file: templateFile({ key: 'gone.tpl', list: 'gone' }) }, ACTOR);
    await templates.publish(w.envId, 'gone.tpl', ACTOR);
    const d = await device(w);
    expect(codes(await sendTo('gone.tpl', { type: 'INSTALLATION_ID', value: d.installationId }))).toEqual(['LIST_UNSUBSCRIBED']);
    await w.h.services.engage.lists.delete(w.envId, 'gone', ACTOR);
    expect(codes(await sendTo('gone.tpl', { type: 'INSTALLATION_ID', value: d.installationId }))).toEqual(['TARGETED']);
  });
});

describe('quiet hours', () => {
  it('a normal-priority push inside them is deferred to their end: no attempt before it, one after; high is not deferred; a TTL ending first is not sent', async () => {
    // The clock reads 2026-01-01T00:00Z: 01:00 in Berlin, inside 22:00–07:00, which ends at 06:00Z.
    w.h.clock.set(new Date('2026-01-01T00:00:00Z'));
    const externalId = `q-${crypto.randomUUID()}`;
    const d = await device(w, { externalId });
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { quiet_hours: { start: '22:00', end: '07:00' }, time_zone: 'Europe/Berlin' } });
    const them = { type: 'EXTERNAL_ID', value: externalId };

    const deferred = await sendTo('quiet.tpl', them);
    expect(deferred).toMatchObject({ accepted: true, diagnostics: [{ code: 'DEFERRED_QUIET_HOURS', deferredUntil: '2026-01-01T06:00:00.000Z' }] });
    const deferredId = deferred.diagnostics[0].deliveryId!;
    expect(deferredId).toBeTruthy();
    const high = await sendTo('quiet.high', them);
    expect(high.diagnostics).toEqual([expect.objectContaining({ code: 'TARGETED' })]);
    expect(high.diagnostics[0].deferredUntil).toBeUndefined();
    const short = await sendTo('quiet.short', them);
    expect(short).toMatchObject({ accepted: false, diagnostics: [{ code: 'EXPIRES_IN_QUIET_HOURS', deliveryId: null, deferredUntil: '2026-01-01T06:00:00.000Z' }] });
    expect(await deliveryRows(w, 'installation_id = ?', [d.installationId])).toHaveLength(2);

    const deliveries = w.h.services.engage.messaging.deliveries;
    const reached = (id: string) => w.apns.requests.some((r) => r.apnsId === id);
    await deliveries.run();
    expect(reached(high.diagnostics[0].deliveryId!)).toBe(true);
    expect(reached(deferredId)).toBe(false);
    w.h.clock.set(new Date('2026-01-01T05:59:59Z'));
    await deliveries.run();
    expect(reached(deferredId)).toBe(false);
    expect((await deliveryRows(w, 'id = ?', [deferredId]))[0]).toMatchObject({ state: 'PENDING', attempts: 0 });
    w.h.clock.set(new Date('2026-01-01T06:00:00Z'));
    await deliveries.run();
    expect(reached(deferredId)).toBe(true);
    expect((await deliveryRows(w, 'id = ?', [deferredId]))[0]).toMatchObject({ state: 'SENT', attempts: 1 });

    // Outside the quiet hours: sent at once.
    expect(codes(await sendTo('quiet.tpl', them))).toEqual(['TARGETED']);
  });

  it('without a time_zone attribute the installation’s own zone is used; a value that cannot be read holds nothing back; an installation recipient reaches its profile', async () => {
    // 23:30 in Paris (the fixture's installation zone), 22:30Z.
    w.h.clock.set(new Date('2026-01-01T22:30:00Z'));
    const externalId = `z-${crypto.randomUUID()}`;
    const d = await device(w, { externalId });
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { quiet_hours: { start: '23:00', end: '06:30' } } });
    expect((await sendTo('quiet.tpl', { type: 'INSTALLATION_ID', value: d.installationId })).diagnostics[0]).toMatchObject({ code: 'DEFERRED_QUIET_HOURS', deferredUntil: '2026-01-02T05:30:00.000Z' });
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { time_zone: 'Asia/Tokyo' } }); // 07:30 there: outside
    expect(codes(await sendTo('quiet.tpl', { type: 'EXTERNAL_ID', value: externalId }))).toEqual(['TARGETED']);
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { time_zone: 'Not/AZone' } }); // unknown: the installation's zone again
    expect(codes(await sendTo('quiet.tpl', { type: 'EXTERNAL_ID', value: externalId }))).toEqual(['DEFERRED_QUIET_HOURS']);
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { quiet_hours: { start: '23:00' } } });
    expect(codes(await sendTo('quiet.tpl', { type: 'EXTERNAL_ID', value: externalId }))).toEqual(['TARGETED']);
  });
});
