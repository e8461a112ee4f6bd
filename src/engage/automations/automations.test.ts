import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { bearer, ingest, json, op } from '../../../test/fixtures/engage';
import { createPushWorld, device, runAutomationWork, type PushWorld } from '../../../test/fixtures/messaging';
import type { AutomationDefinition } from './schemas';
import { nextTimeOfDay } from './time-of-day';
import { sync } from '../../../test/fixtures/sync';
import { inboxPage } from '../../../test/fixtures/inbox';

/** Issue 28 on the test engine: the trigger endpoint's refusals and idempotency, every step kind, waits, exits, versions, pause and archive. */
let w: PushWorld;
let receiver: { url: string; hits: { id: string; headers: http.IncomingHttpHeaders; body: string }[]; answer: (n: number) => number; close(): Promise<void> };
const a = () => w.h.services.engage.automations;
const RUN_ALL = () => runAutomationWork(w);

beforeAll(async () => {
  w = await createPushWorld({ webhookAllowPrivate: '127.0.0.0/8' });
  const hits: { id: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const state = { answer: (_n: number) => 200 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hits.push({ id: String(req.headers['webhook-id']), headers: req.headers, body });
      const status = state.answer(hits.length);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ score: 42, nested: { plan: 'gold' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits,
    get answer() {
      return state.answer;
    },
    set answer(f) {
      state.answer = f;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await w?.close();
});

const automation = (key: string, over: Partial<AutomationDefinition> = {}): AutomationDefinition => ({
  key,
  name: `Automation ${key}`,
  entries: { api: true },
  start: 'welcome',
  steps: { welcome: { type: 'exit' } },
  ...over,
});

async function published(def: AutomationDefinition): Promise<{ id: string; apiKey: string }> {
  const created = await a().create({ environment: w.envId, file: def }, ACTOR);
  await a().publish(w.envId, def.key, ACTOR);
  return { id: created.id, apiKey: created.automationApiKey ?? '' };
}

async function profileOf(externalId: string): Promise<string> {
  await device(w, { externalId });
  return (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, externalId))!;
}

function trigger(apiKey: string, body: unknown, opts: { key?: string; env?: string; idem?: string } = {}) {
  const headers: Record<string, string> = { ...bearer(opts.key ?? w.accessKey), ...(opts.idem ? { 'Idempotency-Key': opts.idem } : {}) };
  return w.h.request(`/api/v1/environments/${opts.env ?? w.envId}/automations/${apiKey}/trigger`, json(body, headers));
}
const problem = async (r: Response) => ((await r.json()) as { code: string }).code;
const runOf = (id: string) => a().run(w.envId, id);

describe('the trigger endpoint', () => {
  it('answers 202 with accepted, runId and enteredAt; every refusal has its status and code', async () => {
    const { apiKey } = await published(automation('refusals', { audience: [{ attribute: 'profile.tags', operator: 'contains', values: ['vip'] }] }));
    const vip = await profileOf('trig-vip');
    await w.h.services.engage.operations.ingest; // (tags are set below through ingest)
    const s = await device(w, { externalId: 'trig-vip-2' });
    await ingest(w.h, s, [op('PROFILE_TAGS_EDITED', { add: ['vip'] }, { generation: s.generation })]);
    const member = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, 'trig-vip-2'))!;
    const ok = await trigger(apiKey, { profileId: member, context: { plan: 'gold' } });
    expect(ok.status).toBe(202);
    const body = (await ok.json()) as { accepted: boolean; runId: string; enteredAt: string };
    expect(body).toEqual({ accepted: true, runId: expect.any(String), enteredAt: w.h.clock.now().toISOString() });
    expect((await runOf(body.runId)).context).toEqual({ plan: 'gold' });

    const cases: [string, Response, number, string][] = [
      ['no key', await w.h.request(`/api/v1/environments/${w.envId}/automations/${apiKey}/trigger`, json({ profileId: member })), 401, 'unauthorized'],
      ['another environment in the path', await trigger(apiKey, { profileId: member }, { env: randomUUID() }), 401, 'unauthorized'],
      ['unknown automation key', await trigger('aut_nothing', { profileId: member }), 404, 'automation_not_found'],
      ['unknown profile', await trigger(apiKey, { profileId: randomUUID() }), 404, 'profile_not_found'],
      ['not in the audience', await trigger(apiKey, { profileId: vip }), 409, 'profile_not_in_audience'],
      ['re-entry (NEVER by default)', await trigger(apiKey, { profileId: member }), 409, 'reentry_refused'],
      ['context too large', await trigger(apiKey, { profileId: member, context: { blob: 'x'.repeat(17_000) } }), 413, 'context_too_large'],
      ['context too deep', await trigger(apiKey, { profileId: member, context: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }), 413, 'context_too_large'],
      ['context not an object', await trigger(apiKey, { profileId: member, context: [1] }), 400, 'invalid_request'],
      ['no profileId', await trigger(apiKey, { context: {} }), 400, 'invalid_request'],
      ['unknown field', await trigger(apiKey, { profileId: member, extra: 1 }), 400, 'invalid_request'],
    ];
    for (const [what, res, status, code] of cases) {
      expect(res.status, what).toBe(status);
      expect(await problem(res), what).toBe(code);
    }
    // Inactive: a draft, then a paused one.
    const draft = await a().create({ environment: w.envId, file: automation('draft-one') }, ACTOR);
    expect(await problem(await trigger(draft.automationApiKey!, { profileId: member }))).toBe('automation_not_active');
    await a().pause(w.envId, 'refusals', ACTOR);
    const paused = await trigger(apiKey, { profileId: vip });
    expect([paused.status, await problem(paused)]).toEqual([409, 'automation_not_active']);
    // App scope: a key for the Android app only, the automation for iOS only.
    const android = await w.h.services.engage.environments.createAccessKey({ environment: w.envId, apps: [w.android.id] }, ACTOR);
    const iosOnly = await published(automation('ios-only', { targetApps: [w.ios.id] }));
    const scoped = await trigger(iosOnly.apiKey, { profileId: member }, { key: android.key });
    expect([scoped.status, await problem(scoped)]).toEqual([403, 'automation_app_not_allowed']);
    // A rotated key stops working at once.
    const { automationApiKey } = await a().rotateKey(w.envId, 'ios-only', ACTOR);
    expect((await trigger(iosOnly.apiKey, { profileId: member })).status).toBe(404);
    expect((await trigger(automationApiKey, { profileId: member })).status).toBe(202);
  });

  it('Idempotency-Key: a retry answers the first run, another body is 409; 100 concurrent triggers with one key make one run', async () => {
    const { id, apiKey } = await published(automation('idem', { reentry: { mode: 'ALWAYS' } }));
    const p = await profileOf('idem-1');
    const first = await trigger(apiKey, { profileId: p, context: { n: 1 } }, { idem: 'order-1' });
    const again = await trigger(apiKey, { profileId: p, context: { n: 1 } }, { idem: 'order-1' });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual(await first.json());
    const other = await trigger(apiKey, { profileId: p, context: { n: 2 } }, { idem: 'order-1' });
    expect([other.status, await problem(other)]).toEqual([409, 'idempotency_key_reused']);
    const answers = await Promise.all(Array.from({ length: 100 }, () => trigger(apiKey, { profileId: p, context: { n: 3 } }, { idem: 'order-2' })));
    const bodies = await Promise.all(answers.map(async (r) => [r.status, ((await r.json()) as { runId: string }).runId] as const));
    expect(new Set(bodies.map((b) => b[0]))).toEqual(new Set([202]));
    expect(new Set(bodies.map((b) => b[1])).size).toBe(1);
    const runs = await a().runs(w.envId, 'idem', { page: 0, size: 100 });
    expect(runs.items.length).toBe(2);
    expect(runs.items.every((r) => r.automationId === id)).toBe(true);
  });

  it('re-entry: AFTER_END refuses while a run is live; ALWAYS with an interval; a cap per profile', async () => {
    const after = await published(automation('after-end', { reentry: { mode: 'AFTER_END' }, steps: { welcome: { type: 'wait', seconds: 60 } } }));
    const p = await profileOf('reentry-1');
    expect((await trigger(after.apiKey, { profileId: p })).status).toBe(202);
    await RUN_ALL();
    expect(await problem(await trigger(after.apiKey, { profileId: p }))).toBe('reentry_refused');
    w.h.clock.advance(61);
    await RUN_ALL();
    expect((await trigger(after.apiKey, { profileId: p })).status).toBe(202);
    const always = await published(automation('always', { reentry: { mode: 'ALWAYS', minIntervalSeconds: 30, maxRunsPerProfile: 2 } }));
    expect((await trigger(always.apiKey, { profileId: p })).status).toBe(202);
    expect(await problem(await trigger(always.apiKey, { profileId: p }))).toBe('reentry_refused');
    w.h.clock.advance(31);
    expect((await trigger(always.apiKey, { profileId: p })).status).toBe(202);
    w.h.clock.advance(31);
    expect(await problem(await trigger(always.apiKey, { profileId: p }))).toBe('reentry_refused');
  });
});

describe('runs', () => {
  it('condition, profile-update, push, webhook and exit: each step once, in order, with its status and output; the context never updates the profile by itself', async () => {
    const secretBefore = (await w.h.services.engage.webhooks.signing.signingSecrets(w.envId))[0];
    const { apiKey } = await published(
      automation('five', {
        start: 'check',
        steps: {
          check: { type: 'condition', conditions: [{ attribute: 'context.plan', operator: 'equals', values: ['gold'] }], then: 'tag', else: 'bye' },
          tag: { type: 'profile-update', set: { plan: '{{context.plan}}', seen: 'plan {{context.plan}}' }, addTags: ['gold'], next: 'notify' },
          notify: { type: 'push', template: 'order.shipped', variables: { orderId: '{{context.orderId}}', amount: 12.5, shippedOn: '2026-03-04' }, next: 'hook' },
          hook: { type: 'webhook', method: 'POST', url: receiver.url, body: { profile: '{{profile.externalId}}', plan: '{{profile.attributes.plan}}' }, responseMapping: { score: 'score' }, next: 'bye' },
          bye: { type: 'exit' },
        },
      }),
    );
    const s = await device(w, { externalId: 'five-1' });
    const p = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, 'five-1'))!;
    const before = w.apns.requests.length;
    const run = ((await (await trigger(apiKey, { profileId: p, context: { plan: 'gold', orderId: 'A-9', secretNote: 'not for the profile' } })).json()) as { runId: string }).runId;
    await RUN_ALL();
    const r = await runOf(run);
    expect(r.status).toBe('EXITED');
    expect(r.steps.map((x) => [x.stepId, x.status])).toEqual([
      ['check', 'SUCCEEDED'],
      ['tag', 'SUCCEEDED'],
      ['notify', 'SUCCEEDED'],
      ['hook', 'SUCCEEDED'],
      ['bye', 'SUCCEEDED'],
    ]);
    expect(r.steps[0].output).toEqual({ matched: true });
    expect(r.context).toMatchObject({ score: 42 });
    const profile = (await w.h.services.engage.profiles.profileView(w.envId, 'five-1'))!;
    expect(profile.attributes).toEqual({ plan: 'gold', seen: 'plan gold' });
    expect(profile.tags).toEqual(['gold']);
    // The push: one delivery to the profile's installation, sent with the run's key.
    const pushes = w.apns.requests.slice(before).filter((x) => x.token === s.token);
    expect(pushes.length).toBe(1);
    expect((pushes[0].payload as { aps: { alert: { title: string } } }).aps.alert.title).toBe('Order A-9 shipped');
    expect((r.steps[2].output as { replayed: boolean }).replayed).toBe(false);
    // The webhook: Standard Webhooks headers, verified by the standardwebhooks package.
    const hit = receiver.hits.at(-1)!;
    expect(hit.id).toBe(`${run}:hook`);
    // (its verify() judges the timestamp by the system clock; the server's is the test's fixed clock)
    const timestamp = Number(hit.headers['webhook-timestamp']);
    expect(timestamp).toBe(Math.floor(w.h.clock.now().getTime() / 1000));
    expect(String(hit.headers['webhook-signature']).split(' ')).toContain(new Webhook(secretBefore).sign(hit.id, new Date(timestamp * 1000), hit.body));
    expect((JSON.parse(hit.body) as { data: unknown }).data).toEqual({ profile: 'five-1', plan: 'gold' });
  });

  it('a webhook is retried on the Svix schedule with one webhook-id; a push retried by the engine is not sent twice', async () => {
    const start = receiver.hits.length;
    receiver.answer = (n) => (n - start === 1 ? 500 : 200);
    const { apiKey } = await published(automation('retry', { start: 'hook', steps: { hook: { type: 'webhook', method: 'POST', url: receiver.url } } }));
    const p = await profileOf('retry-1');
    const run = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    await RUN_ALL();
    expect((await runOf(run)).status).toBe('RUNNING');
    expect((await runOf(run)).steps[0]).toMatchObject({ status: 'RUNNING', attempts: 1, error: expect.stringContaining('500') });
    w.h.clock.advance(4);
    await RUN_ALL();
    expect(receiver.hits.length - start).toBe(1);
    w.h.clock.advance(1);
    await RUN_ALL();
    const r = await runOf(run);
    expect(r.status).toBe('COMPLETED');
    expect(receiver.hits.slice(start).map((h) => h.id)).toEqual([`${run}:hook`, `${run}:hook`]);
    receiver.answer = () => 200;
  });

  it('waits: a duration, an event with its timeout branch, and exit criteria that end a waiting run', async () => {
    const { apiKey } = await published(
      automation('waits', {
        exit: { eventName: 'unsubscribed' },
        start: 'pause',
        steps: {
          pause: { type: 'wait', seconds: 3_600, next: 'await' },
          await: { type: 'wait', event: { eventName: 'purchase', conditions: [{ property: 'total', operator: 'gte', values: [50] }], timeoutSeconds: 600 }, next: 'thanks', timeoutNext: 'nudge' },
          thanks: { type: 'profile-update', addTags: ['bought'] },
          nudge: { type: 'profile-update', addTags: ['nudged'] },
        },
      }),
    );
    const buyer = await device(w, { externalId: 'wait-buyer' });
    const idler = await device(w, { externalId: 'wait-idler' });
    const leaver = await device(w, { externalId: 'wait-leaver' });
    const runs: Record<string, string> = {};
    for (const [name] of [['wait-buyer'], ['wait-idler'], ['wait-leaver']]) {
      const p = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, name))!;
      runs[name] = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    }
    await RUN_ALL();
    expect((await runOf(runs['wait-buyer'])).status).toBe('WAITING');
    w.h.clock.advance(3_599);
    await RUN_ALL();
    expect((await runOf(runs['wait-buyer'])).stepId).toBe('pause');
    w.h.clock.advance(1);
    await RUN_ALL();
    expect((await runOf(runs['wait-buyer'])).waitingEvent).toBe('purchase');
    const event = (s: typeof buyer, name: string, properties: Record<string, unknown>) =>
      ingest(w.h, s, [op('EVENT_TRACKED', { name, properties, value: null, transactionId: null }, { generation: s.generation, occurredAt: w.h.clock.now().toISOString() })]);
    await event(buyer, 'purchase', { total: 20 }); // does not meet the condition
    await event(buyer, 'purchase', { total: 80 });
    await event(leaver, 'unsubscribed', {});
    await RUN_ALL();
    expect((await runOf(runs['wait-buyer'])).status).toBe('COMPLETED');
    expect((await runOf(runs['wait-leaver'])).status).toBe('EXITED');
    expect((await runOf(runs['wait-idler'])).status).toBe('WAITING');
    w.h.clock.advance(600);
    await RUN_ALL();
    expect((await runOf(runs['wait-idler'])).status).toBe('COMPLETED');
    const tags = async (x: string) => (await w.h.services.engage.profiles.profileView(w.envId, x))!.tags;
    expect([await tags('wait-buyer'), await tags('wait-idler'), await tags('wait-leaver')]).toEqual([['bought'], ['nudged'], []]);
    expect((await runOf(runs['wait-idler'])).steps[1].output).toMatchObject({ outcome: 'TIMEOUT' });
    void idler;
  });

  it('an event entry starts a run for the event’s profile, with the event’s properties', async () => {
    await published(
      automation('on-signup', {
        reentry: { mode: 'ALWAYS' },
        entries: { event: { eventName: 'signed_up', conditions: [{ property: 'source', operator: 'equals', values: ['ad'] }] } },
        start: 'tag',
        steps: { tag: { type: 'profile-update', set: { source: '{{event.properties.source}}' } } },
      }),
    );
    const s = await device(w, { externalId: 'entry-1' });
    await ingest(w.h, s, [op('EVENT_TRACKED', { name: 'signed_up', properties: { source: 'organic' }, value: null, transactionId: null }, { generation: s.generation })]);
    await ingest(w.h, s, [op('EVENT_TRACKED', { name: 'signed_up', properties: { source: 'ad' }, value: null, transactionId: null }, { generation: s.generation })]);
    await RUN_ALL();
    expect((await w.h.services.engage.profiles.profileView(w.envId, 'entry-1'))!.attributes).toEqual({ source: 'ad' });
    expect((await a().runs(w.envId, 'on-signup', { page: 0, size: 20 })).items).toEqual([expect.objectContaining({ status: 'COMPLETED', entry: { type: 'EVENT', name: 'signed_up', properties: { source: 'ad' } } })]);
    // The events' work item acted on twice (a worker died after acting): one run more, not two.
    const p = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, 'entry-1'))!;
    for (let i = 0; i < 2; i++) await a().engine.onEvents(w.envId, p, [{ name: 'signed_up', properties: { source: 'ad' } }], 'work-item-1');
    expect((await a().runs(w.envId, 'on-signup', { page: 0, size: 20 })).items.length).toBe(2);
  });

  it('versions: a run stays on the version it entered with; pause holds runs, resume continues them, archive cancels them; a run can be cancelled', async () => {
    const v1 = automation('versions', { reentry: { mode: 'ALWAYS' }, start: 'pause', steps: { pause: { type: 'wait', seconds: 60, next: 'mark' }, mark: { type: 'profile-update', addTags: ['v1'] } } });
    const { apiKey } = await published(v1);
    const p = await profileOf('versions-1');
    const old = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    await RUN_ALL();
    const v2 = { ...v1, steps: { pause: { type: 'wait' as const, seconds: 60, next: 'mark' }, mark: { type: 'profile-update' as const, addTags: ['v2'] } } };
    const updated = await a().update({ environment: w.envId, key: 'versions', file: v2 }, ACTOR);
    expect(updated.view).toMatchObject({ version: 2, publishedVersion: 2, status: 'ACTIVE' });
    w.h.clock.advance(1);
    const fresh = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    await RUN_ALL();
    await a().pause(w.envId, 'versions', ACTOR);
    w.h.clock.advance(120);
    await RUN_ALL();
    expect((await runOf(old)).status).toBe('WAITING');
    expect((await w.h.services.engage.profiles.profileView(w.envId, 'versions-1'))!.tags).toEqual([]);
    await a().resume(w.envId, 'versions', ACTOR);
    await RUN_ALL();
    expect([(await runOf(old)).status, (await runOf(old)).version, (await runOf(fresh)).version]).toEqual(['COMPLETED', 1, 2]);
    expect((await w.h.services.engage.profiles.profileView(w.envId, 'versions-1'))!.tags.sort()).toEqual(['v1', 'v2']);
    const third = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    const fourth = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    await RUN_ALL();
    expect((await a().cancelRun(w.envId, third, ACTOR)).status).toBe('CANCELLED');
    await expect(a().cancelRun(w.envId, third, ACTOR)).rejects.toMatchObject({ code: 'run_ended' });
    await a().archive(w.envId, 'versions', ACTOR);
    expect((await runOf(fourth)).status).toBe('CANCELLED');
  });

  it('publish refuses a graph that cannot run: a cycle, an unreachable step, an unknown step, a placeholder a run does not have, a missing template', async () => {
    const bad: [string, Partial<AutomationDefinition>, string][] = [
      ['cycle', { start: 'a', steps: { a: { type: 'wait', seconds: 5, next: 'b' }, b: { type: 'wait', seconds: 5, next: 'a' } } }, 'makes a cycle'],
      ['unreachable', { start: 'a', steps: { a: { type: 'exit' }, b: { type: 'exit' } } }, 'is not reachable'],
      ['unknown', { start: 'a', steps: { a: { type: 'wait', seconds: 5, next: 'nowhere' } } }, 'which is no step'],
      ['placeholder', { start: 'a', steps: { a: { type: 'profile-update', set: { x: '{{event.properties.y}}' } } } }, 'has no event entry'],
      ['template', { start: 'a', steps: { a: { type: 'push', template: 'no.such' } } }, 'no active template no.such'],
    ];
    for (const [key, over, reason] of bad) {
      await a().create({ environment: w.envId, file: automation(`bad-${key}`, over) }, ACTOR);
      await expect(a().publish(w.envId, `bad-${key}`, ACTOR), key).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining(reason) });
    }
  });
});

describe('profile erasure', () => {
  it('ends the profile’s runs and erases their context, entry and steps; another profile’s runs go on', async () => {
    const { apiKey } = await published(automation('erasable', { start: 'pause', steps: { pause: { type: 'wait', seconds: 60, next: 'mark' }, mark: { type: 'profile-update', addTags: ['done'] } } }));
    const erased = await profileOf('erase-me');
    const kept = await profileOf('keep-me');
    const runs = [];
    for (const p of [erased, kept]) runs.push(((await (await trigger(apiKey, { profileId: p, context: { email: 'someone@example.com' } })).json()) as { runId: string }).runId);
    await RUN_ALL();
    await w.h.services.engage.privacy.eraseProfile(w.envId, { id: erased }, ACTOR);
    await expect(runOf(runs[0])).rejects.toMatchObject({ code: 'run_not_found' });
    expect(Number((await w.h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM automation_steps WHERE run_id = ?', [runs[0]]))!.n)).toBe(0);
    w.h.clock.advance(61);
    await RUN_ALL();
    expect((await runOf(runs[1])).status).toBe('COMPLETED');
  });
});

describe('the in-app step', () => {
  it('makes an automationOnly message eligible for the profile for its period (its installations sync it, then a tombstone), saves it to the inbox; a missing message fails the step', async () => {
    const inApp = w.h.services.engage.inApp;
    const layout = { title: 'Welcome back', body: 'Here is 10% off' };
    await inApp.create({ environment: w.envId, file: { key: 'comeback', automationOnly: true, triggers: [{ type: 'APP_OPEN' }], defaultLocale: 'en', content: { en: layout } } }, ACTOR);
    await inApp.publish(w.envId, 'comeback', ACTOR);
    const { apiKey } = await published(
      automation('grant', { reentry: { mode: 'ALWAYS' }, start: 'show', steps: { show: { type: 'in-app', message: 'comeback', periodSeconds: 3_600, saveToInbox: true } } }),
    );
    const s = await device(w, { externalId: 'grant-1' });
    const other = await device(w, { externalId: 'grant-2' });
    const p = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, 'grant-1'))!;
    const before = await sync(w.h, s, null, ['IN_APP']);
    expect(before.documents.map((d) => d.key)).toEqual(['settings']);
    const run = ((await (await trigger(apiKey, { profileId: p })).json()) as { runId: string }).runId;
    await RUN_ALL();
    expect((await runOf(run)).status).toBe('COMPLETED');
    const delta = await sync(w.h, s, before.cursor, ['IN_APP']);
    expect(delta.documents.map((d) => [d.key, (d.payload.layout as { title: string }).title])).toEqual([['message/comeback', 'Welcome back']]);
    expect((await sync(w.h, other, null, ['IN_APP'])).documents.map((d) => d.key)).toEqual(['settings']);
    const page = await inboxPage(w.h, s);
    expect(page.entries.map((e: { key: string }) => e.key)).toEqual(['comeback']);
    w.h.clock.advance(3_601);
    const later = await sync(w.h, s, delta.cursor, ['IN_APP']);
    expect(later.tombstones.map((t) => t.key)).toEqual(['message/comeback']);
    // A message that is not there: the step fails, nothing of it stays.
    const { apiKey: missing } = await published(automation('grant-missing', { start: 'show', steps: { show: { type: 'in-app', message: 'comeback', periodSeconds: 60 } } }));
    await inApp.archive(w.envId, 'comeback', ACTOR);
    const failed = ((await (await trigger(missing, { profileId: p })).json()) as { runId: string }).runId;
    await RUN_ALL();
    expect(await runOf(failed)).toMatchObject({ status: 'FAILED', error: 'in-app: no published in-app message comeback' });
  });
});

describe('wait until a time of day', () => {
  it('is the next HH:MM on the zone’s wall clock, across daylight-saving changes', () => {
    const at = (iso: string) => Date.parse(iso);
    // Paris, 2026-03-28 10:00 UTC (11:00 CET): 09:00 is tomorrow, after the spring change (CEST, UTC+2) → 07:00 UTC.
    expect(new Date(nextTimeOfDay(at('2026-03-28T10:00:00Z'), '09:00', 'Europe/Paris')).toISOString()).toBe('2026-03-29T07:00:00.000Z');
    // 02:30 does not exist in Paris on 2026-03-29: an hour later, as the clocks jumped (03:30 CEST = 01:30 UTC).
    expect(new Date(nextTimeOfDay(at('2026-03-28T23:00:00Z'), '02:30', 'Europe/Paris')).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    // New York, autumn: 2026-11-01 01:30 happens twice; the first (EDT, UTC−4).
    expect(new Date(nextTimeOfDay(at('2026-11-01T04:00:00Z'), '01:30', 'America/New_York')).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // Later today when still ahead; UTC for an unknown zone.
    expect(new Date(nextTimeOfDay(at('2026-06-01T08:00:00Z'), '09:15', 'Nowhere/City')).toISOString()).toBe('2026-06-01T09:15:00.000Z');
  });
});
