import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bind, bootstrap, ingest, op, sendBatch, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { EventReader, SYNC_EVENT } from '../../../test/helpers/sse';

// GET /v1/sdk/sync/events (issue 26 point 6), in process on the test engine: the writers'
// notices after commit reach the streams concerned, and only them.
let h: Harness;
let env: Awaited<ReturnType<typeof setupEnvironment>>;
let readers: EventReader[];
beforeEach(async () => {
  h = await createHarness({ syncStreamsMax: 6 });
  env = await setupEnvironment(h);
  readers = [];
});
afterEach(async () => {
  for (const r of readers) await r.cancel();
  await h.close();
});

const events = (token: string) => h.request('/v1/sdk/sync/events', { headers: bearer(token) });
async function stream(s: Session): Promise<EventReader> {
  const res = await events(s.credential);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const r = new EventReader(res.body);
  readers.push(r);
  expect(await r.next()).toBe('retry: 5000\n:');
  return r;
}
const QUIET_MS = 300;

describe('GET /v1/sdk/sync/events', () => {
  it('401 Problem without a valid installation credential (none, unknown, the revocation credential)', async () => {
    const s = await bootstrap(h, env.app.appKey);
    for (const headers of [{}, bearer('svc_inst_unknown'), bearer(s.revocationCredential)]) {
      const res = await h.request('/v1/sdk/sync/events', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
    }
  });

  it('its own attribute change reaches the installation within a second; another installation hears nothing', async () => {
    const a = await bootstrap(h, env.app.appKey);
    const b = await bootstrap(h, env.app.appKey);
    const [ra, rb] = [await stream(a), await stream(b)];
    await ingest(h, a, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: 'pro' } })]);
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect(await rb.nextEvent(QUIET_MS)).toBe('timeout');
    // A batch that changes no state (a tracked event) says nothing.
    await ingest(h, a, [op('EVENT_TRACKED', { name: 'opened', properties: {} })]);
    expect(await ra.nextEvent(QUIET_MS)).toBe('timeout');
  });

  it('a replayed batch and a refused one (409, nothing committed) say nothing', async () => {
    const a = await bootstrap(h, env.app.appKey);
    const ra = await stream(a);
    const batchId = crypto.randomUUID();
    const edit = op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: 'pro' } });
    expect((await sendBatch(h, a, [edit], batchId)).status).toBe(202);
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect((await sendBatch(h, a, [edit], batchId)).status).toBe(200); // the replay (spec 01: 200 with the first answer)
    expect((await sendBatch(h, a, [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: 'free' } })], batchId)).status).toBe(409);
    expect(await ra.nextEvent(QUIET_MS)).toBe('timeout');
  });

  it('a definition change reaches every stream of its environment and none of another environment', async () => {
    const other = await setupEnvironment(h, 'staging');
    const a = await bootstrap(h, env.app.appKey);
    const c = await bootstrap(h, other.app.appKey);
    const [ra, rc] = [await stream(a), await stream(c)];
    h.services.engage.syncNotices.notices.definitionsChanged(env.environment.id);
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect(await rc.nextEvent(QUIET_MS)).toBe('timeout');
  });

  it('a profile change reaches both installations bound to it; a binding transition moves the stream to the new profile', async () => {
    const a = await bootstrap(h, env.app.appKey);
    const b = await bootstrap(h, env.app.appKey);
    const ra = await stream(a);
    const rb = await stream(b);
    const ga = await bind(h, env.accessKey, a, 'user-1'); // a's stream: its own transition
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    const gb = await bind(h, env.accessKey, b, 'user-1');
    expect(await rb.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect(await ra.nextEvent(QUIET_MS)).toBe('timeout');
    // b edits the profile both are bound to: a hears it through the profile it followed.
    await ingest(h, b, [op('PROFILE_ATTRIBUTES_EDITED', { set: { tier: 'gold' } }, { generation: gb })]);
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect(await rb.nextEvent(1_000)).toBe(SYNC_EVENT);
    // a signs out (a fresh anonymous profile): user-1's changes no longer concern it.
    await bind(h, env.accessKey, a, null);
    expect(await ra.nextEvent(1_000)).toBe(SYNC_EVENT);
    await ingest(h, b, [op('PROFILE_TAGS_EDITED', { add: ['vip'] }, { generation: gb })]);
    expect(await rb.nextEvent(1_000)).toBe(SYNC_EVENT);
    expect(await ra.nextEvent(QUIET_MS)).toBe('timeout');
    expect(ga).toBe(1);
  });

  it('an erased installation’s stream closes, and it cannot open another', async () => {
    const a = await bootstrap(h, env.app.appKey);
    const ra = await stream(a);
    await h.services.engage.privacy.eraseInstallation(env.environment.id, a.installationId, ACTOR);
    expect(await ra.nextEvent(1_000)).toBe('closed');
    expect((await events(a.credential)).status).toBe(401);
  });

  it('disabling its environment ends the streams at once (not at their idle time) and a reconnection is refused; so does a deletion', async () => {
    const other = await setupEnvironment(h, 'staging');
    const [a, b, c] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey), await bootstrap(h, other.app.appKey)];
    const [ra, rb, rc] = [await stream(a), await stream(b), await stream(c)];
    await h.services.engage.environments.update(env.environment.id, { status: 'DISABLED' }, ACTOR);
    expect(await ra.nextEvent(1_000)).toBe('closed');
    expect(await rb.nextEvent(1_000)).toBe('closed');
    expect((await events(a.credential)).status).toBe(401);
    // Another environment's stream is left alone; its deletion ends it in turn.
    expect(await rc.nextEvent(QUIET_MS)).toBe('timeout');
    await h.services.engage.environments.remove('staging', ACTOR);
    expect(await rc.nextEvent(1_000)).toBe('closed');
    expect((await events(c.credential)).status).toBe(401);
    // Enabled again: streams open as before.
    await h.services.engage.environments.update(env.environment.id, { status: 'ACTIVE' }, ACTOR);
    await stream(a);
  });

  it('disabling its app ends the streams of its installations at once (the inbox badge stream too), on the CLI’s path and the API’s; a reconnection is refused; another app’s stay', async () => {
    const apps = h.services.engage.environments;
    const android = await apps.createApp({ environment: env.environment.id, platform: 'ANDROID', name: 'prod-android' }, ACTOR);
    const [a, b, c] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey), await bootstrap(h, android.appKey, { platform: 'ANDROID' })];
    const badge = await h.request('/v1/sdk/inbox/events', { headers: bearer(b.credential) });
    expect(badge.status).toBe(200);
    const rbadge = new EventReader(badge.body);
    readers.push(rbadge);
    expect(await rbadge.next()).toBe('retry: 5000\n:');
    expect(await rbadge.nextEvent()).toBe('event: inbox\ndata: {"unreadCount":0}');
    const [ra, rc] = [await stream(a), await stream(c)];
    // `engage apps disable` (the CLI's path).
    await apps.disableApp(env.app.id, env.environment.id, ACTOR);
    expect(await ra.nextEvent(1_000)).toBe('closed');
    expect(await rbadge.nextEvent(1_000)).toBe('closed');
    expect((await events(a.credential)).status).toBe(401);
    expect(await rc.nextEvent(QUIET_MS)).toBe('timeout');
    // PATCH …/apps/{app} {"status": "DISABLED"} (the API's and the console's path).
    await apps.updateApp(env.environment.id, android.id, { status: 'DISABLED' }, ACTOR);
    expect(await rc.nextEvent(1_000)).toBe('closed');
    expect((await events(c.credential)).status).toBe(401);
    // Enabled again: streams open as before; a change of name only ends nothing.
    await apps.enableApp(env.app.id, env.environment.id, ACTOR);
    const again = await stream(a);
    await apps.updateApp(env.environment.id, env.app.id, { name: 'prod-ios-2' }, ACTOR);
    expect(await again.nextEvent(QUIET_MS)).toBe('timeout');
  });

  it('an app with installations is not deleted (409 app_in_use): its streams stay; an app’s deletion says so to every process', async () => {
    const apps = h.services.engage.environments;
    const a = await bootstrap(h, env.app.appKey);
    const ra = await stream(a);
    await expect(apps.deleteApp(env.environment.id, env.app.id, ACTOR)).rejects.toMatchObject({ code: 'app_in_use' });
    expect(await ra.nextEvent(QUIET_MS)).toBe('timeout');
    const spare = await apps.createApp({ environment: env.environment.id, platform: 'ANDROID', name: 'spare' }, ACTOR);
    const said: unknown[] = [];
    const notices = h.services.engage.syncNotices.notices;
    const appClosed = notices.appClosed!;
    notices.appClosed = (...args) => {
      said.push(args);
      appClosed(...args);
    };
    try {
      await apps.deleteApp(env.environment.id, spare.id, ACTOR);
    } finally {
      notices.appClosed = appClosed;
    }
    expect(said).toEqual([[env.environment.id, spare.id]]);
    expect(await ra.nextEvent(QUIET_MS)).toBe('timeout');
  });

  it('the SDK’s revocation closes the stream too', async () => {
    const a = await bootstrap(h, env.app.appKey);
    const ra = await stream(a);
    const res = await h.request(`/v1/sdk/privacy/revocations/${crypto.randomUUID()}`, { method: 'PUT', headers: bearer(a.revocationCredential) });
    expect(res.status).toBe(204);
    expect(await ra.nextEvent(1_000)).toBe('closed');
  });

  it('/metrics counts open streams; three per installation at most (the oldest closes); beyond the process cap 503 with Retry-After', async () => {
    const a = await bootstrap(h, env.app.appKey);
    const b = await bootstrap(h, env.app.appKey);
    const gauge = async () => /^engage_sync_streams_open (\d+)$/m.exec(await h.services.metrics.registry.render())?.[1];
    expect(await gauge()).toBe('0');
    const first = await stream(a);
    await stream(a);
    await stream(a);
    expect(await gauge()).toBe('3');
    await stream(a);
    expect(await first.nextEvent(1_000)).toBe('closed');
    expect(await gauge()).toBe('3');
    await stream(b);
    await stream(b);
    await stream(b);
    expect(await gauge()).toBe('6'); // syncStreamsMax
    const c = await bootstrap(h, env.app.appKey);
    const full = await events(c.credential);
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('5');
    expect(((await full.json()) as { code: string }).code).toBe('temporarily_unavailable');
    for (const r of readers.splice(0)) await r.cancel();
    expect(await gauge()).toBe('0');
  });

  it('is in the OpenAPI document as text/event-stream with 200, 400 (a NUL in the URL), 401 and 503', async () => {
    const doc = (await (await h.request('/openapi.json')).json()) as { paths: Record<string, { get: { responses: Record<string, { content?: object }>; security: object[] } }> };
    const get = doc.paths['/v1/sdk/sync/events'].get;
    expect(Object.keys(get.responses).sort()).toEqual(['200', '400', '401', '503']);
    expect(Object.keys(get.responses['200'].content!)).toEqual(['text/event-stream']);
    expect(get.security).toEqual([{ installation: [] }]);
  });
});
