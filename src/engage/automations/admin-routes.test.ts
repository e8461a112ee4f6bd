import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { createLogger } from '../../platform/logger';
import type { AutomationRow } from './store';
import { docsExample } from '../../../test/helpers/docs-examples';
import { publishViolations, type AutomationDefinition } from './schemas';

/**
 * Automations over the engagement administration API (issue 28): the status table of every route
 * (401, 403, 400 naming the field or the graph's fault, 404, 409), If-Match and ETags, the
 * lifecycle DRAFT → ACTIVE → new version → PAUSED → ACTIVE → ARCHIVED, the API entry's key shown
 * at creation and rotation only (never in a read, a list or the audit trail), runs and their
 * timeline, cancellation, and isolation between environments.
 */
let h: Harness;
let a: EngageAdminFixture;
let all: string;
let readOnly: string;
let shopId: string;
let otherId: string;
const { read } = ENGAGE_ADMIN_API.scopes;
/** Every line the instance logs, at debug level: no key may be among them. */
const logged: string[] = [];

beforeAll(async () => {
  h = await createHarness({}, { logger: createLogger({ level: 'debug', format: 'json', write: (l) => logged.push(l) }) });
  a = await createEngageAdminFixture(h);
  shopId = (await setupEnvironment(h, 'shop')).environment.id;
  otherId = (await setupEnvironment(h, 'other')).environment.id;
  all = await a.token();
  readOnly = await a.token([read]);
}, 60_000);
afterAll(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked by the assertions
const body = async (res: Response): Promise<[number, any]> => [res.status, res.status === 204 ? null : await res.json()];
const withIfMatch = (method: string, path: string, ifMatch: string, payload?: unknown) =>
  h.request(`${a.root}${path}`, {
    method,
    headers: { authorization: `Bearer ${all}`, 'content-type': 'application/json', 'if-match': ifMatch },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
const base = '/environments/shop/automations';

/** A publishable automation: an API entry, a wait of an hour, then a profile update and the end. */
const file = (key: string, over: Record<string, unknown> = {}) => ({
  key,
  name: `Automation ${key}`,
  entries: { api: true },
  start: 'hold',
  steps: {
    hold: { type: 'wait', seconds: 3600, next: 'tag' },
    tag: { type: 'profile-update', addTags: ['welcomed'], next: 'done' },
    done: { type: 'exit' },
  },
  ...over,
});

/** A run of the automation for a (made-up, inserted) profile, entered as the trigger enters one: an entry needs its profile to be there. */
async function enterRun(environmentId: string, key: string, profileId = randomUUID()): Promise<string> {
  await h.sql.run('INSERT INTO profiles (id, environment_id, external_id, created_at) VALUES (?, ?, NULL, ?) ON CONFLICT (id) DO NOTHING', [profileId, environmentId, '2026-01-01T00:00:00.000Z']);
  const [, view] = await body(await a.call('GET', `/environments/${environmentId}/automations/${key}`, readOnly));
  const row = { id: view.id, status: view.status, publishedVersion: view.publishedVersion } as AutomationRow;
  return (await h.services.engage.automations.enter(environmentId, row, profileId, { orderId: 'A-17' }, { type: 'API' })).runId;
}

describe('automations over the administration API: the status table', () => {
  it('401 without a token and 403 with the read scope on every change; reads need only read', async () => {
    expect((await a.call('POST', base, all, file('table'))).status).toBe(201);
    await a.call('POST', `${base}/table/publish`, all);
    const runId = await enterRun(shopId, 'table');
    const routes: [string, string, unknown?][] = [
      ['GET', base], ['POST', base, file('x')], ['GET', `${base}/table`], ['PUT', `${base}/table`, file('table')],
      ['POST', `${base}/table/publish`], ['POST', `${base}/table/pause`], ['POST', `${base}/table/resume`], ['POST', `${base}/table/archive`],
      ['POST', `${base}/table/rotate-key`], ['GET', `${base}/table/runs`],
      ['GET', `/environments/shop/automation-runs/${runId}`], ['POST', `/environments/shop/automation-runs/${runId}/cancel`],
    ];
    for (const [method, path, payload] of routes) {
      expect((await a.call(method, path, undefined, payload)).status, `${method} ${path}`).toBe(401);
      const [status, b] = await body(await a.call(method, path, readOnly, payload));
      if (method === 'GET') expect(status, `${method} ${path}`).toBe(200);
      else expect([status, b], `${method} ${path}`).toEqual([403, { error: 'insufficient_scope' }]);
    }
  });

  it('400 naming the field: shape, rules across fields, unknown apps, queries and If-Match', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [file('Bad Key'), 'key'],
      [file('x', { extra: 1 }), 'extra'],
      [file('x', { name: '' }), 'name'],
      [file('x', { entries: {} }), 'entries: needs an api entry, an event entry, or both'],
      [file('x', { steps: { hold: { type: 'wait', seconds: 5, timeOfDay: '09:00' } } }), 'steps.hold: a wait needs exactly one of seconds, timeOfDay, event'],
      [file('x', { steps: { hold: { type: 'teleport' } } }), 'steps.hold'],
      [file('x', { targetApps: ['other-ios'] }), 'targetApps[0]: no app other-ios in this environment'],
      [file('x', { reentry: { mode: 'SOMETIMES' } }), 'reentry.mode'],
      [file('x', { audience: [{ attribute: 'appVersion', operator: 'semverGte', values: ['not-a-version'] }] }), 'audience[0]'],
    ];
    // A webhook step's fault is named alone (not every other step type's missing fields), and what
    // delivery would refuse at every attempt is refused here: credentials in the URL, a header value HTTP does not allow.
    const hook = (over: Record<string, unknown>) => file('x', { start: 'hook', steps: { hook: { type: 'webhook', method: 'POST', url: 'https://crm.example.com/h', ...over } } });
    const urlRule = 'steps.hook.url: must match ^https?://[^\\s/?#@]+([/?#]\\S*)?$';
    for (const [f, description] of [
      [hook({ url: 'ftp://crm.example.com/h' }), urlRule],
      [hook({ url: 'https://user:secret@crm.example.com/h' }), urlRule],
      [hook({ url: 'https://crm.example.com@127.0.0.1/h' }), urlRule],
      [hook({ headers: { 'X-Split': 'a\r\nX-Injected: 1' } }), 'steps.hook.headers.X-Split: must match ^[\\t\\x20-\\x7e\\x80-\\xff]*$'],
      [hook({ method: 'GET' }), 'steps.hook.method: must be one of POST, PUT, PATCH'],
    ] as const) {
      const [status, b] = await body(await a.call('POST', base, all, f));
      expect([status, b.error, b.error_description], JSON.stringify(f)).toEqual([400, 'invalid_request', description]);
    }
    for (const url of ['https://crm.example.com', 'https://crm.example.com:8443/a/b?c=d@e#f', 'http://[2001:db8::1]/x']) {
      const f = { ...hook({ url }), key: `url-${url.length}` };
      expect((await body(await a.call('POST', base, all, f)))[0], url).toBe(201);
    }
    for (const [f, field] of cases) {
      const [status, b] = await body(await a.call('POST', base, all, f));
      expect([status, b.error], JSON.stringify(f)).toEqual([400, 'invalid_request']);
      expect(b.error_description, JSON.stringify(f)).toContain(field);
    }
    expect((await body(await a.call('POST', base, all, '[1]')))[1]).toMatchObject({ error: 'invalid_request' });
    expect((await body(await a.call('POST', base, all, '{"key":')))[1]).toMatchObject({ error: 'invalid_request' });
    for (const q of ['?status=LIVE', '?size=0', '?page=-1']) expect((await body(await a.call('GET', `${base}${q}`, readOnly)))[0], q).toBe(400);
    for (const q of ['?status=DONE', '?size=201']) expect((await body(await a.call('GET', `${base}/table/runs${q}`, readOnly)))[0], q).toBe(400);
    expect((await body(await a.call('GET', `${base}/Bad%20Key`, readOnly)))[1]).toMatchObject({ error: 'invalid_request' });
    const [s1, b1] = await body(await withIfMatch('PUT', `${base}/table`, 'seven', file('table')));
    expect([s1, b1.error, b1.error_description]).toEqual([400, 'invalid_request', expect.stringContaining('If-Match')]);
    const [s2, b2] = await body(await a.call('PUT', `${base}/table`, all, file('renamed')));
    expect([s2, b2.error, b2.error_description]).toEqual([400, 'invalid_request', expect.stringContaining('key: is immutable')]);
  });

  it('400 at publish naming the graph’s fault: a cycle, an unreachable step, an unknown step, a placeholder, a missing template or message', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ steps: { hold: { type: 'wait', seconds: 5, next: 'tag' }, tag: { type: 'profile-update', addTags: ['x'], next: 'hold' } } }, 'steps.tag: makes a cycle (hold'],
      [{ steps: { hold: { type: 'wait', seconds: 5 }, lost: { type: 'exit' } } }, 'steps.lost: is not reachable from the start'],
      [{ steps: { hold: { type: 'wait', seconds: 5, next: 'nowhere' } } }, 'steps.hold: leads to nowhere, which is no step'],
      [{ start: 'nowhere' }, 'start: names no step (nowhere)'],
      [{ steps: { hold: { type: 'profile-update', set: { plan: '{{context.plan}}', who: '{{secrets.token}}' } } } }, '{{secrets.token}} is not something a run has'],
      [{ steps: { hold: { type: 'profile-update', set: { item: '{{event.properties.sku}}' } } } }, 'the automation has no event entry'],
      [{ steps: { hold: { type: 'push', template: 'no-such-template' } } }, 'steps.hold.template: no active template no-such-template in this environment'],
      [{ steps: { hold: { type: 'in-app', message: 'no-such-message', periodSeconds: 3600 } } }, 'steps.hold.message: no in-app message no-such-message in this environment'],
    ];
    for (const [i, [over, fault]] of cases.entries()) {
      const key = `graph-${i}`;
      // A draft may be unfinished: the graph is checked at publish.
      expect((await a.call('POST', base, all, file(key, over))).status, key).toBe(201);
      const [status, b] = await body(await a.call('POST', `${base}/${key}/publish`, all));
      expect([status, b.error], key).toEqual([400, 'invalid_request']);
      expect(b.error_description, key).toContain(fault);
      expect((await body(await a.call('GET', `${base}/${key}`, readOnly)))[1].status, key).toBe('DRAFT');
    }
    // A live automation's edit is checked as a publish is.
    expect((await a.call('POST', base, all, file('live-edit'))).status).toBe(201);
    expect((await a.call('POST', `${base}/live-edit/publish`, all)).status).toBe(200);
    const [status, b] = await body(await a.call('PUT', `${base}/live-edit`, all, file('live-edit', cases[1][0])));
    expect([status, b.error, b.error_description]).toEqual([400, 'invalid_request', expect.stringContaining('not reachable')]);
  });

  it('404 for an unknown automation, run or environment; 409 for a duplicate, a stale If-Match, a wrong status, a managed automation, an ended run', async () => {
    for (const [method, path] of [
      ['GET', `${base}/nothing`], ['PUT', `${base}/nothing`], ['POST', `${base}/nothing/publish`], ['POST', `${base}/nothing/pause`], ['POST', `${base}/nothing/resume`],
      ['POST', `${base}/nothing/archive`], ['POST', `${base}/nothing/rotate-key`], ['GET', `${base}/nothing/runs`],
    ] as const) {
      expect(await body(await a.call(method, path, all, method === 'PUT' ? file('nothing') : undefined)), `${method} ${path}`).toEqual([404, { error: 'automation_not_found' }]);
    }
    for (const [method, path] of [['GET', `/environments/shop/automation-runs/${randomUUID()}`], ['POST', `/environments/shop/automation-runs/${randomUUID()}/cancel`], ['GET', '/environments/shop/automation-runs/x']] as const) {
      expect(await body(await a.call(method, path, all)), path).toEqual([404, { error: 'run_not_found' }]);
    }
    expect(await body(await a.call('GET', '/environments/nowhere/automations', readOnly))).toEqual([404, { error: 'unknown_environment' }]);
    expect((await a.call('POST', base, all, file('dup'))).status).toBe(201);
    expect(await body(await a.call('POST', base, all, file('dup')))).toEqual([409, { error: 'automation_exists' }]);
    expect(await body(await withIfMatch('POST', `${base}/dup/publish`, '"2"'))).toEqual([409, { error: 'automation_version_conflict' }]);
    expect(await body(await a.call('POST', `${base}/dup/pause`, all))).toEqual([409, { error: 'automation_status_conflict' }]);
    expect(await body(await a.call('POST', `${base}/dup/resume`, all))).toEqual([409, { error: 'automation_status_conflict' }]);
    expect((await body(await a.call('POST', `${base}/dup/archive`, all)))[0]).toBe(200);
    expect(await body(await a.call('POST', `${base}/dup/publish`, all))).toEqual([409, { error: 'automation_status_conflict' }]);
    expect(await body(await a.call('PUT', `${base}/dup`, all, file('dup', { name: 'again' })))).toEqual([409, { error: 'automation_status_conflict' }]);
    // No api entry: no key to rotate.
    expect((await a.call('POST', base, all, file('by-event', { entries: { event: { eventName: 'signed_up' } } }))).status).toBe(201);
    expect(await body(await a.call('POST', `${base}/by-event/rotate-key`, all))).toEqual([409, { error: 'automation_status_conflict' }]);

    expect((await a.call('POST', base, all, file('managed'))).status).toBe(201);
    expect(await h.services.engage.automations.markManaged(shopId, 'managed', ACTOR)).toBe(true);
    for (const [method, path] of [['PUT', `${base}/managed`], ['POST', `${base}/managed/publish`], ['POST', `${base}/managed/archive`]] as const) {
      expect(await body(await a.call(method, path, all, method === 'PUT' ? file('managed', { name: 'x' }) : undefined)), path).toEqual([409, { error: 'configuration_managed' }]);
    }
    // engage apply does not manage the key: a declared automation's key is rotated over the API.
    const [rs, rotated] = await body(await a.call('POST', `${base}/managed/rotate-key`, all));
    expect([rs, Object.keys(rotated)]).toEqual([200, ['automationApiKey']]);
    expect((await body(await a.call('GET', `${base}/managed`, readOnly)))[1]).toMatchObject({ configurationManaged: true, status: 'DRAFT' });

    const runId = await enterRun(shopId, 'table');
    expect((await body(await a.call('POST', `/environments/shop/automation-runs/${runId}/cancel`, all)))[1]).toMatchObject({ id: runId, status: 'CANCELLED' });
    expect(await body(await a.call('POST', `/environments/shop/automation-runs/${runId}/cancel`, all))).toEqual([409, { error: 'run_ended' }]);
  });
});

describe('automations over the administration API: lifecycle, keys and runs', () => {
  let firstKey: string;
  let secondKey: string;

  it('DRAFT → ACTIVE → new version (runs stay on theirs) → PAUSED → ACTIVE → ARCHIVED, with ETags and If-Match', async () => {
    const [s1, created] = await body(await a.call('POST', base, all, file('welcome', { targetApps: ['shop-ios'] })));
    expect(s1).toBe(201);
    expect(created).toMatchObject({ key: 'welcome', status: 'DRAFT', version: 1, publishedVersion: null, apiEntry: true, configurationManaged: false });
    expect(created.automationApiKey).toMatch(/^aut_/);
    firstKey = created.automationApiKey;
    const r1 = await a.call('GET', `${base}/welcome`, readOnly);
    expect(r1.headers.get('etag')).toBe('"1"');
    const [, read1] = await body(r1);
    expect(read1.automationApiKey).toBeUndefined();
    expect(read1).toMatchObject({ runs: {}, steps: {}, definition: { targetApps: [created.definition.targetApps[0]] } });

    const [, draft2] = await body(await withIfMatch('PUT', `${base}/welcome`, '"1"', file('welcome', { name: 'Welcome, v2' })));
    expect([draft2.version, draft2.publishedVersion, draft2.status, draft2.changed]).toEqual([2, null, 'DRAFT', true]);
    const [s2, live] = await body(await withIfMatch('POST', `${base}/welcome/publish`, '"2"'));
    expect([s2, live.status, live.publishedVersion, live.changed]).toEqual([200, 'ACTIVE', 2, true]);
    expect((await body(await a.call('POST', `${base}/welcome/publish`, all)))[1]).toMatchObject({ status: 'ACTIVE', changed: false });

    const runOnV2 = await enterRun(shopId, 'welcome');
    // An edit of a live automation publishes a new version at once; the run stays on version 2.
    const e1 = await withIfMatch('PUT', `${base}/welcome`, '"2"', file('welcome', { name: 'Welcome, v3' }));
    expect(e1.headers.get('etag')).toBe('"3"');
    expect((await body(e1))[1]).toMatchObject({ status: 'ACTIVE', version: 3, publishedVersion: 3, changed: true, name: 'Welcome, v3' });
    expect(await body(await withIfMatch('PUT', `${base}/welcome`, '"2"', file('welcome', { name: 'v4' })))).toEqual([409, { error: 'automation_version_conflict' }]);
    const { key: _key, ...keyless } = file('welcome', { name: 'Welcome, v3' });
    const [, same] = await body(await withIfMatch('PUT', `${base}/welcome`, '*', keyless));
    expect([same.version, same.changed]).toEqual([3, false]);
    const runOnV3 = await enterRun(shopId, 'welcome');
    const [, run2] = await body(await a.call('GET', `/environments/shop/automation-runs/${runOnV2}`, readOnly));
    const [, run3] = await body(await a.call('GET', `/environments/shop/automation-runs/${runOnV3}`, readOnly));
    expect([run2.version, run3.version]).toEqual([2, 3]);

    const [, paused] = await body(await withIfMatch('POST', `${base}/welcome/pause`, '"3"'));
    expect([paused.status, paused.changed]).toEqual(['PAUSED', true]);
    expect((await body(await a.call('POST', `${base}/welcome/pause`, all)))[1]).toMatchObject({ status: 'PAUSED', changed: false });
    expect(await body(await a.call('POST', `${base}/welcome/publish`, all))).toEqual([409, { error: 'automation_status_conflict' }]);
    const [, resumed] = await body(await a.call('POST', `${base}/welcome/resume`, all));
    expect([resumed.status, resumed.publishedVersion, resumed.changed]).toEqual(['ACTIVE', 3, true]);

    const [, shown] = await body(await a.call('GET', `${base}/welcome`, readOnly));
    expect(shown.runs).toEqual({ RUNNING: 2 });
    const [, archived] = await body(await withIfMatch('POST', `${base}/welcome/archive`, '"3"'));
    expect([archived.status, archived.changed]).toEqual(['ARCHIVED', true]);
    expect((await body(await a.call('POST', `${base}/welcome/archive`, all)))[1]).toMatchObject({ status: 'ARCHIVED', changed: false });
    // Archiving cancelled the runs under way.
    const [, afterArchive] = await body(await a.call('GET', `${base}/welcome`, readOnly));
    expect(afterArchive.runs).toEqual({ CANCELLED: 2 });
    expect(await body(await a.call('POST', `/environments/shop/automation-runs/${runOnV3}/cancel`, all))).toEqual([409, { error: 'run_ended' }]);
  });

  it('rotate-key answers a new key once; the old one stops working at the trigger', async () => {
    expect((await a.call('POST', base, all, file('keyed'))).status).toBe(201);
    await a.call('POST', `${base}/keyed/publish`, all);
    const [, rotated] = await body(await a.call('POST', `${base}/keyed/rotate-key`, all));
    secondKey = rotated.automationApiKey;
    expect(secondKey).toMatch(/^aut_/);
    expect(secondKey).not.toBe(firstKey);
    const env = await setupEnvironmentKey();
    const trigger = (k: string) =>
      h.request(`/api/v1/environments/${shopId}/automations/${k}/trigger`, {
        method: 'POST', headers: { authorization: `Bearer ${env}`, 'content-type': 'application/json' }, body: JSON.stringify({ profileId: randomUUID() }),
      });
    const [, again] = await body(await a.call('POST', `${base}/keyed/rotate-key`, all));
    expect((await trigger(secondKey)).status).toBe(404);
    // The current key is found (the made-up profile is then refused, which proves the key matched).
    expect(await body(await trigger(again.automationApiKey))).toEqual([404, expect.objectContaining({ code: 'profile_not_found' })]);
  });

  it('lists runs newest first with status and profile filters, and a run’s timeline', async () => {
    expect((await a.call('POST', base, all, file('runs', { reentry: { mode: 'ALWAYS' } }))).status).toBe(201);
    await a.call('POST', `${base}/runs/publish`, all);
    const alice = randomUUID();
    const first = await enterRun(shopId, 'runs', alice);
    h.clock.advance(1);
    const second = await enterRun(shopId, 'runs', alice);
    h.clock.advance(1);
    const third = await enterRun(shopId, 'runs');
    await h.services.engage.automations.engine.run();
    const [, page] = await body(await a.call('GET', `${base}/runs/runs`, readOnly));
    expect(page.items.map((r: { id: string }) => r.id)).toEqual([third, second, first]);
    const [, mine] = await body(await a.call('GET', `${base}/runs/runs?profileId=${alice}&size=1`, readOnly));
    expect([mine.items.map((r: { id: string }) => r.id), mine.hasMore]).toEqual([[second], true]);
    await a.call('POST', `/environments/shop/automation-runs/${first}/cancel`, all);
    const [, cancelled] = await body(await a.call('GET', `${base}/runs/runs?status=CANCELLED`, readOnly));
    expect(cancelled.items.map((r: { id: string }) => r.id)).toEqual([first]);

    const [s, run] = await body(await a.call('GET', `/environments/shop/automation-runs/${second}`, readOnly));
    expect(s).toBe(200);
    expect(run).toMatchObject({ id: second, profileId: alice, version: 1, context: { orderId: 'A-17' }, entry: { type: 'API' }, stepId: 'hold' });
    expect(run.steps.length).toBeGreaterThanOrEqual(1);
    expect(run.steps[0]).toMatchObject({ seq: expect.any(Number), stepId: 'hold', kind: 'wait' });
    const [, shown] = await body(await a.call('GET', `${base}/runs`, readOnly));
    expect(shown.steps.hold).toBeDefined();
  });

  it('audits every change with the operator, and never the key (audit trail, lists, reads)', async () => {
    const [, audit] = await body(await a.call('GET', '/environments/shop/audit-events?size=200', readOnly));
    const mine = audit.items.filter((e: { targetType: string; targetId: string }) => e.targetType === 'automation' && e.targetId === 'welcome');
    expect(mine.map((e: { action: string }) => e.action).reverse()).toEqual([
      'automation.created', 'automation.updated', 'automation.published', 'automation.updated', 'automation.paused', 'automation.resumed', 'automation.archived',
    ]);
    for (const e of mine) expect(e).toMatchObject({ environmentId: shopId, actorSubject: a.operator.subject });
    const rotations = audit.items.filter((e: { action: string }) => e.action === 'automation.key_rotated');
    expect(rotations.length).toBeGreaterThanOrEqual(2);
    expect(audit.items.some((e: { action: string }) => e.action === 'automation.run_cancelled')).toBe(true);
    const [, list] = await body(await a.call('GET', `${base}?size=200`, readOnly));
    const [, keyed] = await body(await a.call('GET', `${base}/keyed`, readOnly));
    expect(logged.length).toBeGreaterThan(0);
    // The trigger's access log names its route pattern, never the path that holds the key.
    expect(logged.some((l) => l.includes('/automations/:automationApiKey/trigger'))).toBe(true);
    for (const text of [JSON.stringify(audit), JSON.stringify(list), JSON.stringify(keyed), logged.join('\n')]) {
      expect(text).not.toContain('aut_');
      expect(text).not.toContain(firstKey);
      expect(text).not.toContain(secondKey);
    }
    expect(list.items[0].definition).toBeUndefined();
    const [, drafts] = await body(await a.call('GET', `${base}?status=ARCHIVED`, readOnly));
    expect(drafts.items.map((x: { key: string }) => x.key)).toEqual(['dup', 'welcome']);
  });
});

describe('automations over the administration API: isolation', () => {
  it("accepts docs/automations.md's automation file as written, and its graph publishes", async () => {
    const [status, m] = await body(await a.call('POST', base, all, docsExample('automations.md', 'automation-file')));
    expect([status, m.status, Object.keys(m.definition.steps).length]).toEqual([201, 'DRAFT', 9]);
    expect(publishViolations(m.definition as AutomationDefinition)).toEqual([]);
    // Every step kind is shown.
    expect(new Set(Object.values(m.definition.steps).map((x) => (x as { type: string }).type))).toEqual(new Set(['push', 'in-app', 'webhook', 'profile-update', 'condition', 'wait', 'exit']));
  });

  it("keeps environments apart: another environment's automation and run are 404 from this one, for every route", async () => {
    expect((await a.call('POST', '/environments/other/automations', all, file('theirs'))).status).toBe(201);
    await a.call('POST', '/environments/other/automations/theirs/publish', all);
    const theirRun = await enterRun(otherId, 'theirs');
    const theirs = `${base}/theirs`;
    const calls: [string, string, unknown?][] = [
      ['GET', theirs], ['PUT', theirs, file('theirs')], ['POST', `${theirs}/publish`], ['POST', `${theirs}/pause`], ['POST', `${theirs}/resume`],
      ['POST', `${theirs}/archive`], ['POST', `${theirs}/rotate-key`], ['GET', `${theirs}/runs`],
    ];
    for (const [method, path, payload] of calls) expect(await body(await a.call(method, path, all, payload)), `${method} ${path}`).toEqual([404, { error: 'automation_not_found' }]);
    for (const [method, path] of [['GET', `/environments/shop/automation-runs/${theirRun}`], ['POST', `/environments/shop/automation-runs/${theirRun}/cancel`]] as const) {
      expect(await body(await a.call(method, path, all)), path).toEqual([404, { error: 'run_not_found' }]);
    }
    const [, list] = await body(await a.call('GET', base, readOnly));
    expect(list.items.map((m: { key: string }) => m.key)).not.toContain('theirs');
    expect((await body(await a.call('GET', `/environments/other/automation-runs/${theirRun}`, readOnly)))[1]).toMatchObject({ id: theirRun, status: 'RUNNING' });
  });
});

/** An access key of the shop environment (for every app). */
async function setupEnvironmentKey(): Promise<string> {
  const apps = await h.services.engage.environments.listApps(shopId);
  return (await h.services.engage.environments.createAccessKey({ environment: shopId, apps: apps.map((x) => x.id) }, ACTOR)).key;
}
