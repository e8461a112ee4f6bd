import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushWorld, deliveryRows, device, send, sendBody, templateFile, type PushWorld } from '../../../test/fixtures/messaging';
import { ingest, op, type Session } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';

/**
 * A delivery deferred for quiet hours is checked again when it falls due (issue 26 PREFERENCES;
 * deferred-check.ts), with the harness's fixed clock: quiet hours moved later defer it again to
 * their new end (no attempt before it), moved past its TTL end it EXPIRES_IN_QUIET_HOURS, a
 * profile that left the template's list (PUSH) or an installation that left it (INSTALLATION_ID
 * recipient) is not sent to; one whose preferences did not change is sent at its due time.
 */
let w: PushWorld;
let seq = 0;
/** Operations stamped one second apart, after the last one (last-writer-wins by time). */
const at = () => new Date(Date.parse('2025-12-31T23:00:00Z') + ++seq * 1000).toISOString();
const edit = (s: Session, type: string, payload: unknown) => ingest(w.h, s, [op(type, payload, { generation: s.generation, occurredAt: at() })]);
const run = () => w.h.services.engage.messaging.deliveries.run();
const row = async (id: string) => (await deliveryRows(w, 'id = ?', [id]))[0];
const reached = (id: string) => w.apns.requests.filter((r) => r.apnsId === id).length;
const BERLIN_NIGHT = { quiet_hours: { start: '22:00', end: '07:00' }, time_zone: 'Europe/Berlin' };

beforeAll(async () => {
  w = await createPushWorld();
  await w.h.services.engage.lists.create({ environment: w.envId, file: { key: 'news', displayName: 'News', channels: ['PUSH'] } }, ACTOR);
  const templates = w.h.services.engage.messaging.templates;
  for (const [key, over] of [
    ['night.tpl', { priority: 'normal', ttlSeconds: 86_400 }],
    ['night.short', { priority: 'normal', ttlSeconds: 8 * 3_600 }],
    ['night.news', { priority: 'normal', ttlSeconds: 86_400, list: 'news' }],
  ] as const) {
    await templates.create({ environment: w.envId, file: templateFile({ key, ...over }) }, ACTOR);
    await templates.publish(w.envId, key, ACTOR);
  }
}, 60_000);
afterAll(() => w.close());

/** A device whose profile sleeps 22:00–07:00 in Berlin, and a send to it at 00:00Z (01:00 there): deferred to 06:00Z. */
async function deferredSend(template: string, recipient: 'EXTERNAL_ID' | 'INSTALLATION_ID' = 'EXTERNAL_ID') {
  w.h.clock.set(new Date('2026-01-01T00:00:00Z'));
  const externalId = `q-${crypto.randomUUID()}`;
  const d = await device(w, { externalId });
  await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: BERLIN_NIGHT });
  const res = await send(w, sendBody(recipient === 'EXTERNAL_ID' ? { type: 'EXTERNAL_ID', value: externalId } : { type: 'INSTALLATION_ID', value: d.installationId }), { template });
  expect(res.status).toBe(202);
  const diag = ((await res.json()) as { diagnostics: { code: string; deliveryId: string; deferredUntil: string }[] }).diagnostics[0];
  expect(diag).toMatchObject({ code: 'DEFERRED_QUIET_HOURS', deferredUntil: '2026-01-01T06:00:00.000Z' });
  return { d, id: diag.deliveryId };
}

describe('a deferred quiet-hours delivery is checked again when it falls due', () => {
  it('unchanged preferences: sent at its due time, once', async () => {
    const { id } = await deferredSend('night.tpl');
    w.h.clock.set(new Date('2026-01-01T06:00:00Z'));
    await run();
    expect(reached(id)).toBe(1);
    expect(await row(id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('quiet hours moved later: deferred again to their new end, no attempt before it, sent then', async () => {
    const { d, id } = await deferredSend('night.tpl');
    // 22:00–09:00 Berlin now ends at 08:00Z.
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { quiet_hours: { start: '22:00', end: '09:00' } } });
    w.h.clock.set(new Date('2026-01-01T06:00:00Z'));
    await run();
    expect(reached(id)).toBe(0);
    expect(await row(id)).toMatchObject({ state: 'PENDING', attempts: 0, nextAttemptMs: Date.parse('2026-01-01T08:00:00Z') });
    w.h.clock.set(new Date('2026-01-01T07:59:59Z'));
    await run();
    expect(reached(id)).toBe(0);
    w.h.clock.set(new Date('2026-01-01T08:00:00Z'));
    await run();
    expect(reached(id)).toBe(1);
    expect(await row(id)).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it('quiet hours moved past the TTL: FAILED EXPIRES_IN_QUIET_HOURS, never attempted', async () => {
    // TTL 8 h from 00:00Z: until 08:00Z; 22:00–10:00 Berlin ends at 09:00Z.
    const { d, id } = await deferredSend('night.short');
    await edit(d, 'PROFILE_ATTRIBUTES_EDITED', { set: { quiet_hours: { start: '22:00', end: '10:00' } } });
    w.h.clock.set(new Date('2026-01-01T06:00:00Z'));
    await run();
    expect(reached(id)).toBe(0);
    expect(await row(id)).toMatchObject({ state: 'FAILED', lastError: 'EXPIRES_IN_QUIET_HOURS', attempts: 0 });
  });

  it('the profile left the template’s list (PUSH) meanwhile: FAILED LIST_UNSUBSCRIBED, never attempted', async () => {
    const { d, id } = await deferredSend('night.news');
    await edit(d, 'PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'PUSH', subscribed: false }] });
    w.h.clock.set(new Date('2026-01-01T06:00:00Z'));
    await run();
    expect(reached(id)).toBe(0);
    expect(await row(id)).toMatchObject({ state: 'FAILED', lastError: 'LIST_UNSUBSCRIBED' });
  });

  it('an INSTALLATION_ID recipient whose installation left the list: FAILED LIST_UNSUBSCRIBED; quiet hours removed: sent at the due time', async () => {
    const left = await deferredSend('night.news', 'INSTALLATION_ID');
    await edit(left.d, 'INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', subscribed: false }] });
    const cleared = await deferredSend('night.tpl');
    await edit(cleared.d, 'PROFILE_ATTRIBUTES_EDITED', { remove: ['quiet_hours'] });
    w.h.clock.set(new Date('2026-01-01T06:00:00Z'));
    await run();
    expect(await row(left.id)).toMatchObject({ state: 'FAILED', lastError: 'LIST_UNSUBSCRIBED' });
    expect(reached(left.id)).toBe(0);
    expect(reached(cleared.id)).toBe(1);
  });
});
