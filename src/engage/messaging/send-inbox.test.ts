import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { bearer, bind, bootstrap, json, op } from '../../../test/fixtures/engage';
import { inboxOps, inboxPage } from '../../../test/fixtures/inbox';
import { createPushWorld, deliveryRows, device, send, sendBody, templateFile, VARS, type PushWorld } from '../../../test/fixtures/messaging';
import { docsExample } from '../../../test/helpers/docs-examples';
import { EventReader } from '../../../test/helpers/sse';
import { fcmMessage } from './fcm';
import { messageOf } from './send-message';
import type { TemplateDefinition } from './render';

/** Issue 27 point 1: a template's inbox part, and the entry each send of it writes with its deliveries. */
const inboxPart = (over: Record<string, unknown> = {}) => ({
  key: 'order.shipped',
  localizations: {
    en: {
      payload: { title: 'Order {{orderId}} shipped', total: 'Total {{amount}}', orderId: '{{orderId}}', count: 2 },
      layout: { SUMMARY: { title: 'Order {{orderId}}' }, DETAIL: { body: 'Shipped on {{shippedOn}}', lines: ['{{orderId}}', 3] } },
    },
    de: { payload: { title: 'Bestellung {{orderId}} versandt', total: 'Summe {{amount}}' } },
  },
  ...over,
});

interface SendAnswer {
  accepted: boolean;
  inboxEntryId?: string | null;
  diagnostics: { installationId: string; code: string; deliveryId: string | null }[];
}

describe('sends of a template with an inbox part (both engines)', () => {
  let w: PushWorld;
  const m = () => w.h.services.engage.messaging;
  const publish = async (file: Record<string, unknown>) => {
    await m().templates.create({ environment: w.envId, file }, ACTOR);
    await m().templates.publish(w.envId, file.key as string, ACTOR);
  };
  const entryCount = async () => Number((await w.h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM inbox_entries'))!.n);
  beforeAll(async () => {
    w = await createPushWorld();
    await publish(templateFile({ key: 'order.inbox', inbox: inboxPart() }));
    await publish(templateFile({ key: 'order.inbox-only', localizations: undefined, inbox: inboxPart({ key: 'order.note', expiresInSeconds: 3600 }) }));
  });
  afterAll(() => w.close());

  it('writes one PROFILE entry per send, its id in the push; both installations see it; one reads it, the other’s unread count drops', async () => {
    const a = await device(w, { externalId: 'inbox-u1' });
    const b = await device(w, { externalId: 'inbox-u1' });
    const before = await entryCount();
    const res = await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'inbox-u1' }), { template: 'order.inbox' });
    expect(res.status).toBe(202);
    const body = (await res.json()) as SendAnswer;
    expect(body.accepted).toBe(true);
    expect(body.inboxEntryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.diagnostics.map((d) => d.code)).toEqual(['TARGETED', 'TARGETED']);
    // One entry for the send, not one per installation.
    expect(await entryCount()).toBe(before + 1);
    const row = (await w.h.sql.get<{ scope: string; ownerId: string; sendId: string; key: string }>(
      'SELECT scope, owner_id AS "ownerId", send_id AS "sendId", key FROM inbox_entries WHERE id = ?', [body.inboxEntryId],
    ))!;
    const profile = (await w.h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [a.installationId]))!.p;
    expect(row).toEqual({ scope: 'PROFILE', ownerId: profile, sendId: expect.any(String), key: 'order.shipped' });

    // The push reaches the loopback APNs with the entry id beside the delivery id.
    await m().deliveries.run();
    for (const s of [a, b]) {
      const req = w.apns.requests.find((r) => r.token === s.token);
      expect(req?.payload).toMatchObject({ inboxEntryId: body.inboxEntryId, deliveryId: body.diagnostics.find((d) => d.installationId === s.installationId)!.deliveryId });
    }

    // Both installations page it, in their locale (en-US → en), variables substituted as in the title.
    for (const s of [a, b]) {
      const page = await inboxPage(w.h, s);
      expect(page.unreadCount).toBe(1);
      expect(page.entries).toEqual([
        { id: body.inboxEntryId, key: 'order.shipped', payload: { title: 'Order A-17 shipped', total: 'Total 1,234.5', orderId: 'A-17', count: 2 }, scope: 'PROFILE', sentAt: expect.any(String), expiresAt: null, readAt: null },
      ]);
    }
    // Its LAYOUT resolves, even before the other installation paged (an entry opened from the push).
    const r = await w.h.request('/v1/sdk/inbox/renderings:resolve', json({ entryIds: [body.inboxEntryId] }, bearer(b.credential)));
    expect(r.status).toBe(200);
    expect(((await r.json()) as { renderings: { surfaces: unknown }[] }).renderings[0].surfaces).toEqual({
      SUMMARY: { title: 'Order A-17' },
      DETAIL: { body: 'Shipped on March 4, 2026', lines: ['A-17', 3] },
    });
    // One marks it read: the other's count drops.
    expect((await inboxOps(w.h, a, a.generation, [{ type: 'MARK_READ', entryId: body.inboxEntryId }])).status).toBe(202);
    expect((await inboxPage(w.h, b)).unreadCount).toBe(0);
    expect((await inboxPage(w.h, b)).entries[0].readAt).not.toBeNull();
  });

  it('a send that writes a PROFILE entry updates the live badge of the profile’s devices (GET /v1/sdk/inbox/events)', async () => {
    const s = await device(w, { externalId: 'inbox-badge' });
    const res = await w.h.request('/v1/sdk/inbox/events', { headers: bearer(s.credential) });
    expect(res.status).toBe(200);
    const r = new EventReader(res.body);
    try {
      expect(await r.next()).toBe('retry: 5000\n:');
      expect(await r.nextEvent()).toBe('event: inbox\ndata: {"unreadCount":0}');
      expect((await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'inbox-badge' }), { template: 'order.inbox' })).status).toBe(202);
      expect(await r.nextEvent()).toBe('event: inbox\ndata: {"unreadCount":1}');
    } finally {
      await r.cancel();
    }
  });

  it('a replay writes no second entry and answers the same entry id; a request in German gets the same entry (locales picked when read)', async () => {
    const s = await device(w, { externalId: 'inbox-u2' });
    const req = sendBody({ type: 'EXTERNAL_ID', value: 'inbox-u2' }, { locale: 'de' });
    const first = (await (await send(w, req, { template: 'order.inbox' })).json()) as SendAnswer;
    const count = await entryCount();
    const again = await send(w, req, { template: 'order.inbox' });
    expect(again.status).toBe(202);
    expect(((await again.json()) as SendAnswer).inboxEntryId).toBe(first.inboxEntryId);
    expect(await entryCount()).toBe(count);
    const page = await inboxPage(w.h, s);
    expect(page.entries.map((e) => e.id)).toEqual([first.inboxEntryId]);
    expect(page.unreadCount).toBe(1);
  });

  it('an inbox-only template writes the entry and no delivery (INBOX_ONLY); an INSTALLATION_ID recipient gets an INSTALLATION entry no other installation sees', async () => {
    const s = await device(w, { externalId: 'inbox-u3' });
    const sibling = await device(w, { externalId: 'inbox-u3' });
    const deliveries = (await deliveryRows(w)).length;
    const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: s.installationId }), { template: 'order.inbox-only' });
    expect(res.status).toBe(202);
    const body = (await res.json()) as SendAnswer;
    expect(body).toMatchObject({ accepted: true, inboxEntryId: expect.any(String), diagnostics: [{ installationId: s.installationId, code: 'INBOX_ONLY', deliveryId: null }] });
    expect((await deliveryRows(w)).length).toBe(deliveries);
    const page = await inboxPage(w.h, s);
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({ id: body.inboxEntryId, key: 'order.note', scope: 'INSTALLATION', expiresAt: new Date(Date.parse(page.entries[0].sentAt) + 3600_000).toISOString() });
    expect((await inboxPage(w.h, sibling)).entries).toEqual([]);
    // Its LAYOUT resolves for the installation, not for its sibling.
    const resolve = async (who: typeof s) =>
      ((await (await w.h.request('/v1/sdk/inbox/renderings:resolve', json({ entryIds: [body.inboxEntryId] }, bearer(who.credential)))).json()) as { renderings: { entryId: string }[] }).renderings.map((x) => x.entryId);
    expect(await resolve(s)).toEqual([body.inboxEntryId]);
    expect(await resolve(sibling)).toEqual([]);
  });

  it('an installation whose privacy is OPTED_OUT gets no INSTALLATION entry (inboxEntryId null)', async () => {
    const s = await device(w, { ops: [op('PRIVACY_STATE_SET', { state: 'OPTED_OUT' })] });
    const before = await entryCount();
    const body = (await (await send(w, sendBody({ type: 'INSTALLATION_ID', value: s.installationId }), { template: 'order.inbox-only' })).json()) as SendAnswer;
    expect(body).toMatchObject({ accepted: false, inboxEntryId: null, diagnostics: [{ code: 'PRIVACY_OPTED_OUT', deliveryId: null }] });
    expect(await entryCount()).toBe(before);
  });

  it('an installation of an app the template does not target gets no INSTALLATION entry (APP_NOT_TARGETED)', async () => {
    await publish(templateFile({ key: 'ios.inbox-only', apps: ['shop-ios'], localizations: undefined, inbox: inboxPart() }));
    const android = await device(w, { platform: 'ANDROID' });
    const before = await entryCount();
    const body = (await (await send(w, sendBody({ type: 'INSTALLATION_ID', value: android.installationId }), { template: 'ios.inbox-only' })).json()) as SendAnswer;
    expect(body).toMatchObject({ accepted: false, inboxEntryId: null, diagnostics: [{ code: 'APP_NOT_TARGETED', deliveryId: null }] });
    expect(await entryCount()).toBe(before);
  });

  it('a console test send writes no entry', async () => {
    const group = await m().testGroups.create({ environment: w.envId, name: 'qa-inbox', members: [{ externalId: 'inbox-u1' }] }, ACTOR);
    const before = await entryCount();
    const out = await m().sends.testSend({ environmentId: w.envId, templateKey: 'order.inbox', testGroup: group.id, variables: VARS }, ACTOR);
    expect(out.response.accepted).toBe(true);
    expect(out.response.inboxEntryId).toBeUndefined();
    expect(await entryCount()).toBe(before);
  });

  it('template files: the inbox part is checked (locales, placeholders, layouts, bounds); no push and no inbox is refused', async () => {
    const bad = async (file: Record<string, unknown>) => {
      try {
        await m().templates.create({ environment: w.envId, file: templateFile({ key: 'bad.inbox', ...file }) }, ACTOR);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(await bad({ localizations: undefined })).toBe('localizations: is required unless the template has an inbox part (an inbox-only template)');
    expect(await bad({ inbox: inboxPart({ localizations: { de: { payload: {} } } }) })).toBe('inbox.localizations: must hold the default locale en');
    expect(await bad({ inbox: inboxPart({ localizations: { en: { payload: { t: '{{nope}}' } } } }) })).toBe('inbox.localizations.en.payload.t: {{nope}} is not a declared variable');
    expect(await bad({ inbox: inboxPart({ localizations: { en: { payload: {} }, de: { payload: {}, layout: { SUMMARY: {}, DETAIL: {} } } } }) })).toBe(
      'inbox.localizations.en.layout: is required when another locale has a layout',
    );
    expect(await bad({ inbox: inboxPart({ expiresInSeconds: 59 }) })).toMatch(/^inbox\/expiresInSeconds|inbox\.expiresInSeconds/);
    expect(await bad({ inbox: inboxPart({ localizations: { en: { payload: { big: 'x'.repeat(33_000) } } } }) })).toMatch(/^inbox: is \d+ bytes, more than 32768$/);
    expect(await bad({ inbox: { ...inboxPart(), extra: 1 } })).not.toBe('accepted');
    expect(await bad({ inbox: inboxPart({ localizations: { en: { payload: {}, layout: { SUMMARY: {} } } } }) })).not.toBe('accepted');
  });

  it('docs/inbox.md: its example template is accepted, and a German installation resolves the German layout of the entry its send wrote', async () => {
    await publish(docsExample('inbox.md', 'order-shipped-inbox.json'));
    const s = await bootstrap(w.h, w.ios.appKey, { platform: 'IOS', locale: 'de-AT' });
    s.generation = await bind(w.h, w.accessKey, s, 'inbox-docs');
    const body = (await (await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'inbox-docs' }, { variables: { orderId: 'A-17', amount: 1234.5 } }), { template: 'order.shipped.inbox' })).json()) as SendAnswer;
    expect(body.inboxEntryId).toEqual(expect.any(String));
    const page = await inboxPage(w.h, s);
    expect(page.entries[0]).toMatchObject({ key: 'order.shipped', expiresAt: new Date(Date.parse(page.entries[0].sentAt) + 2_592_000_000).toISOString() });
    const r = (await (await w.h.request('/v1/sdk/inbox/renderings:resolve', json({ entryIds: [body.inboxEntryId] }, bearer(s.credential)))).json()) as { renderings: { surfaces: { DETAIL: unknown } }[] };
    expect(page.entries[0].payload).toEqual({ orderId: 'A-17', headline: 'Bestellung A-17 versandt' });
    expect(r.renderings[0].surfaces.DETAIL).toEqual({ title: 'Bestellung A-17', body: 'Summe 1.234,5' });
  });

  it('the FCM message carries the entry id in its data as the APNs payload does', () => {
    const def = { priority: 'high' } as TemplateDefinition;
    const message = messageOf(def, { resolvedLocale: 'en', title: 't', body: 'b', deepLink: '', customData: {} }, 'e-1');
    expect(fcmMessage({ id: 'd-1', token: 'tok', message, expiresMs: 0 }, 0)).toMatchObject({ message: { data: { deliveryId: 'd-1', inboxEntryId: 'e-1' } } });
  });
});
