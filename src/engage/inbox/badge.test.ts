import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bind, bootstrap, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { inboxOps } from '../../../test/fixtures/inbox';
import { EventReader, SYNC_EVENT } from '../../../test/helpers/sse';
import { writeEntryIn } from './service';

// GET /v1/sdk/inbox/events (issue 27 point 5): the unread count at once and whenever it changes,
// on the stream that also says when to sync; never another installation's.
let h: Harness;
let readers: EventReader[];
beforeEach(async () => {
  h = await createHarness();
  readers = [];
});
afterEach(async () => {
  for (const r of readers) await r.cancel();
  await h.close();
});

async function badgeStream(s: Session): Promise<EventReader> {
  const res = await h.request('/v1/sdk/inbox/events', { headers: bearer(s.credential) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const r = new EventReader(res.body);
  readers.push(r);
  expect(await r.next()).toBe('retry: 5000\n:');
  return r;
}
const badge = (n: number) => `event: inbox\ndata: {"unreadCount":${n}}`;
const profileOf = async (s: Session) => (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;

describe('GET /v1/sdk/inbox/events', () => {
  it('sends the count at once, then each change within a second to both devices of the profile; nothing to another installation; sync notices on the same stream', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const [a, b, other] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    await bind(h, env.accessKey, a, 'user-1');
    await bind(h, env.accessKey, b, 'user-1');
    const profile = await profileOf(a);
    const [ra, rb, ro] = [await badgeStream(a), await badgeStream(b), await badgeStream(other)];
    for (const r of [ra, rb, ro]) expect(await r.nextEvent()).toBe(badge(0));
    const notices = h.services.engage.syncNotices.notices;
    const id = crypto.randomUUID();
    await h.services.store.tx((s) =>
      writeEntryIn(s, { id, environmentId: e, scope: 'PROFILE', ownerId: profile, key: 'k', content: { payloads: { en: {} }, defaultLocale: 'en' }, sentAt: h.clock.now(), expiresAt: null }, notices),
    );
    expect(await ra.nextEvent()).toBe(badge(1));
    expect(await rb.nextEvent()).toBe(badge(1));
    // One device reads it: the other's badge drops.
    expect((await inboxOps(h, a, 1, [{ type: 'MARK_READ', entryId: id }])).status).toBe(202);
    expect(await rb.nextEvent()).toBe(badge(0));
    expect(await ra.nextEvent()).toBe(badge(0));
    // A change that leaves the count as it was sends nothing; a definition change is a sync notice on the same stream.
    expect((await inboxOps(h, a, 1, [{ type: 'MARK_READ', entryId: id }])).status).toBe(202);
    expect(await ra.nextEvent(300)).toBe('timeout');
    notices.definitionsChanged(e);
    expect(await ra.nextEvent()).toBe(SYNC_EVENT);
    expect(await ro.nextEvent()).toBe(SYNC_EVENT);
    expect(await ro.nextEvent(300)).toBe('timeout');
  });

  it('401 without a valid installation credential', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey);
    for (const headers of [{}, bearer('svc_inst_unknown'), bearer(s.revocationCredential)]) expect((await h.request('/v1/sdk/inbox/events', { headers })).status).toBe(401);
  });
});
