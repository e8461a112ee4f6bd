import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { bearer, json } from '../../../test/fixtures/engage';
import { createPushWorld, device, runAutomationWork, templateFile, type PushWorld } from '../../../test/fixtures/messaging';
import { applyAll, type ApplyFile } from '../../apply';
import { SVIX_SCHEDULE_MS } from '../webhooks/delivery';
import type { AutomationDefinition } from './schemas';

/**
 * `onFailure` (docs/automations.md "When a step fails", docs/decisions.md): a push, in-app or
 * webhook step that fails for good sends the run to the step it names; the execution stays FAILED
 * with its error, the run ends as its branch does. Without it a failure ends the run FAILED, as
 * before. Publish holds the extra edge to the graph's rules.
 */
let w: PushWorld;
/** A receiver answering each path's status: /ok 200, /gone 410, /bad 400. */
let receiver: { url: (path: string) => string; hits: { path: string; id: string }[]; close(): Promise<void> };
const a = () => w.h.services.engage.automations;
const RUN_ALL = () => runAutomationWork(w);

beforeAll(async () => {
  w = await createPushWorld({ webhookAllowPrivate: '127.0.0.0/8' });
  const hits: { path: string; id: string }[] = [];
  const statuses: Record<string, number> = { '/ok': 200, '/gone': 410, '/bad': 400 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push({ path: req.url ?? '', id: String(req.headers['webhook-id']) });
      res.writeHead(statuses[req.url ?? ''] ?? 500, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver = { url: (path) => `${base}${path}`, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await w?.close();
});

const automation = (key: string, over: Partial<AutomationDefinition>): AutomationDefinition => ({ key, name: `Automation ${key}`, entries: { api: true }, start: 'welcome', steps: { welcome: { type: 'exit' } }, ...over });

async function published(def: AutomationDefinition): Promise<string> {
  const created = await a().create({ environment: w.envId, file: def }, ACTOR);
  await a().publish(w.envId, def.key, ACTOR);
  return created.automationApiKey ?? '';
}

let profiles = 0;
async function startRun(apiKey: string): Promise<{ runId: string; externalId: string }> {
  const externalId = `on-failure-${++profiles}`;
  await device(w, { externalId });
  const profileId = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, externalId))!;
  const r = await w.h.request(`/api/v1/environments/${w.envId}/automations/${apiKey}/trigger`, json({ profileId }, bearer(w.accessKey)));
  expect(r.status).toBe(202);
  return { runId: ((await r.json()) as { runId: string }).runId, externalId };
}
const runOf = (id: string) => a().run(w.envId, id);
const timeline = async (id: string) => (await runOf(id)).steps.map((s) => [s.stepId, s.status]);
const tags = async (externalId: string) => (await w.h.services.engage.profiles.profileView(w.envId, externalId))!.tags;

/** hook (a webhook to `path`) -> next: ok (tag "ok") | onFailure: fallback (tag "fallback") or bye (an exit). */
const hookSteps = (path: string, onFailure?: 'fallback' | 'bye'): Partial<AutomationDefinition> => ({
  start: 'hook',
  steps: {
    hook: { type: 'webhook', method: 'POST', url: receiver.url(path), next: 'ok', ...(onFailure ? { onFailure } : {}) },
    ok: { type: 'profile-update', addTags: ['ok'] },
    ...(onFailure === 'fallback' ? { fallback: { type: 'profile-update', addTags: ['fallback'] } } : {}),
    ...(onFailure === 'bye' ? { bye: { type: 'exit' } } : {}),
  },
});

describe('onFailure', () => {
  it('a webhook refused for good (410) goes on at onFailure: the execution stays FAILED with its error, the run COMPLETED at the branch’s end; without onFailure the run is FAILED as before', async () => {
    const withBranch = await startRun(await published(automation('gone-branch', hookSteps('/gone', 'fallback'))));
    const without = await startRun(await published(automation('gone-plain', hookSteps('/gone'))));
    await RUN_ALL();

    const r = await runOf(withBranch.runId);
    expect(r).toMatchObject({ status: 'COMPLETED', error: null, stepId: null });
    expect(r.steps.map((s) => [s.stepId, s.status])).toEqual([
      ['hook', 'FAILED'],
      ['fallback', 'SUCCEEDED'],
    ]);
    expect(r.steps[0]).toMatchObject({ attempts: 1, error: 'webhook: HTTP 410 Gone: the receiver asked to stop', output: { onFailure: 'fallback' } });
    expect(await tags(withBranch.externalId)).toEqual(['fallback']);

    const plain = await runOf(without.runId);
    expect(plain).toMatchObject({ status: 'FAILED', error: 'webhook: HTTP 410 Gone: the receiver asked to stop', stepId: 'hook' });
    expect(plain.steps.map((s) => [s.stepId, s.status, s.output])).toEqual([['hook', 'FAILED', null]]);

    // The automation's read counts the failed execution and the branch's.
    const shown = await a().show(w.envId, 'gone-branch');
    expect(shown.runs).toEqual({ COMPLETED: 1 });
    expect(shown.steps).toEqual({ hook: { FAILED: 1 }, fallback: { SUCCEEDED: 1 } });
  });

  it('a webhook answering 400 is retried through the Svix schedule, then goes on at onFailure (an exit there: EXITED); a delivered one takes next', async () => {
    const before = receiver.hits.length;
    const failing = await startRun(await published(automation('bad-branch', hookSteps('/bad', 'bye'))));
    const fine = await startRun(await published(automation('ok-branch', hookSteps('/ok', 'fallback'))));
    await RUN_ALL();
    expect(await timeline(fine.runId)).toEqual([
      ['hook', 'SUCCEEDED'],
      ['ok', 'SUCCEEDED'],
    ]);
    expect(await tags(fine.externalId)).toEqual(['ok']);

    for (const ms of SVIX_SCHEDULE_MS.slice(1)) {
      expect((await runOf(failing.runId)).status).toBe('RUNNING');
      w.h.clock.advance(ms / 1000);
      await RUN_ALL();
    }
    const r = await runOf(failing.runId);
    const hits = receiver.hits.slice(before).filter((h) => h.path === '/bad');
    expect(hits.length).toBe(SVIX_SCHEDULE_MS.length);
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set([`${failing.runId}:hook`]));
    expect(r).toMatchObject({ status: 'EXITED', error: null });
    expect(r.steps.map((s) => [s.stepId, s.status])).toEqual([
      ['hook', 'FAILED'],
      ['bye', 'SUCCEEDED'],
    ]);
    expect(r.steps[0]).toMatchObject({ attempts: SVIX_SCHEDULE_MS.length, error: expect.stringContaining(`HTTP 400`), output: { onFailure: 'bye' } });
    expect(r.steps[0].error).toContain(`gave up after ${SVIX_SCHEDULE_MS.length} attempts`);
  });

  it('a push whose template was archived after publish, and an in-app step whose message was, go on at onFailure', async () => {
    const m = w.h.services.engage.messaging;
    await m.templates.create({ environment: w.envId, file: templateFile({ key: 'retired' }) }, ACTOR);
    await m.templates.publish(w.envId, 'retired', ACTOR);
    const inApp = w.h.services.engage.inApp;
    await inApp.create({ environment: w.envId, file: { key: 'retired-offer', automationOnly: true, triggers: [{ type: 'APP_OPEN' }], defaultLocale: 'en', content: { en: { title: 'Offer', body: 'Gone soon' } } } }, ACTOR);
    await inApp.publish(w.envId, 'retired-offer', ACTOR);
    const push = await published(
      automation('push-branch', {
        start: 'notify',
        steps: {
          notify: { type: 'push', template: 'retired', variables: { orderId: 'A-1', amount: 1, shippedOn: '2026-03-04' }, onFailure: 'fallback' },
          fallback: { type: 'profile-update', addTags: ['fallback'] },
        },
      }),
    );
    const plainPush = await published(automation('push-plain', { start: 'notify', steps: { notify: { type: 'push', template: 'retired', variables: { orderId: 'A-1', amount: 1, shippedOn: '2026-03-04' } } } }));
    const show = await published(
      automation('in-app-branch', { start: 'show', steps: { show: { type: 'in-app', message: 'retired-offer', periodSeconds: 60, next: 'bye', onFailure: 'fallback' }, fallback: { type: 'profile-update', addTags: ['fallback'] }, bye: { type: 'exit' } } }),
    );
    await m.templates.archive(w.envId, 'retired', ACTOR);
    await inApp.archive(w.envId, 'retired-offer', ACTOR);

    const runs = [await startRun(push), await startRun(plainPush), await startRun(show)];
    await RUN_ALL();
    const [p, plain, i] = await Promise.all(runs.map((r) => runOf(r.runId)));
    expect(p).toMatchObject({ status: 'COMPLETED', error: null });
    expect(p.steps[0]).toMatchObject({ stepId: 'notify', status: 'FAILED', error: expect.stringMatching(/^push: template_not_active: /), output: { onFailure: 'fallback' } });
    expect(p.steps.map((s) => s.stepId)).toEqual(['notify', 'fallback']);
    expect(await tags(runs[0].externalId)).toEqual(['fallback']);
    expect(plain).toMatchObject({ status: 'FAILED', error: expect.stringMatching(/^push: template_not_active: /) });
    expect(i).toMatchObject({ status: 'COMPLETED', error: null });
    expect(i.steps.map((s) => [s.stepId, s.status, s.error])).toEqual([
      ['show', 'FAILED', 'in-app: no published in-app message retired-offer'],
      ['fallback', 'SUCCEEDED', null],
    ]);
    // Nothing of the refused in-app step stayed (its grant and inbox entry were undone with its transaction).
    expect(await tags(runs[2].externalId)).toEqual(['fallback']);
  });

  it('publish holds the onFailure edge to the graph’s rules: an unknown step, a cycle; it counts for reachability; only push, in-app and webhook steps take it', async () => {
    const hook = (over: Record<string, unknown>) => ({ type: 'webhook' as const, method: 'POST' as const, url: 'https://example.com/hook', ...over });
    const bad: [string, Partial<AutomationDefinition>, string][] = [
      ['unknown', { start: 'a', steps: { a: hook({ onFailure: 'nowhere' }) } }, 'steps.a: leads to nowhere, which is no step'],
      ['self', { start: 'a', steps: { a: hook({ onFailure: 'a' }) } }, 'steps.a: makes a cycle (a -> a)'],
      ['cycle', { start: 'a', steps: { a: { type: 'wait', seconds: 5, next: 'b' }, b: hook({ next: 'c', onFailure: 'a' }), c: { type: 'exit' } } }, 'steps.b: makes a cycle (a -> b -> a)'],
    ];
    for (const [key, over, reason] of bad) {
      await a().create({ environment: w.envId, file: automation(`of-${key}`, over) }, ACTOR);
      await expect(a().publish(w.envId, `of-${key}`, ACTOR), key).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining(reason) });
    }
    // A step reached only through onFailure is reachable.
    await a().create({ environment: w.envId, file: automation('of-reach', { start: 'a', steps: { a: hook({ onFailure: 'b' }), b: { type: 'exit' } } }) }, ACTOR);
    await expect(a().publish(w.envId, 'of-reach', ACTOR)).resolves.toMatchObject({ view: { status: 'ACTIVE' } });
    // Steps that cannot fail take no onFailure: the shape refuses it, even in a draft.
    await expect(
      a().create({ environment: w.envId, file: automation('of-wait', { start: 'a', steps: { a: { type: 'wait', seconds: 5, onFailure: 'b' } as never, b: { type: 'exit' } } }) }, ACTOR),
    ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('steps.a') });
  });

  it('engage apply takes it, and checks its edge in the plan', async () => {
    const apply = (steps: Record<string, unknown>) =>
      applyAll(
        w.h.services,
        { version: 1, environments: [{ name: 'shop', automations: [{ key: 'applied-branch', definition: { name: 'Applied', entries: { api: true }, start: 'hook', steps } }] }] } as unknown as ApplyFile,
        { dryRun: false, env: {}, readFile: () => '', actor: ACTOR, clock: w.h.clock },
      );
    const hook = { type: 'webhook', method: 'POST', url: 'https://example.com/hook' };
    await expect(apply({ hook: { ...hook, onFailure: 'nowhere' } })).rejects.toThrow('environments[0].automations[0]: steps.hook: leads to nowhere, which is no step');
    await apply({ hook: { ...hook, next: 'bye', onFailure: 'bye' }, bye: { type: 'exit' } });
    expect(await a().show(w.envId, 'applied-branch')).toMatchObject({ status: 'ACTIVE', definition: { steps: { hook: { onFailure: 'bye' } } } });
  });
});
