import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM } from '../helpers/browser';
import { OPERATOR, createOperator, undocumentedCalls, signInToConsole, type ConsoleSession } from '../helpers/console';
import { engageAdminToken } from '../helpers/engage-admin-token';

/**
 * The console's automations (issue 28 "Inspection") on the built executable, as an operator uses
 * them: a file refused by the server shows its violation beside the textarea; an automation created
 * through the page shows its trigger key once, is published; runs started through the trigger
 * endpoint (an access key, profiles bound through the SDK) give the graph real counts, read in
 * its table and its drawing; the runs list filters by status and profile; a run's timeline; a run
 * cancelled; a stale edit refused in words; archived once its key is typed; another environment
 * does not find it. axe-core and the 390 px check on each page; only documented calls.
 */
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;

interface Run {
  id: string;
  status: string;
  profileId: string;
  stepId: string | null;
}

const FILE = {
  key: 'welcome-flow',
  name: 'Welcome flow',
  entries: { api: true },
  start: 'is-gold',
  steps: {
    'is-gold': { type: 'condition', conditions: [{ attribute: 'context.plan', operator: 'in', values: ['gold'] }], then: 'tag', else: 'hold' },
    hold: { type: 'wait', event: { eventName: 'purchase', timeoutSeconds: 86_400 }, next: 'tag', timeoutNext: 'notify' },
    notify: { type: 'webhook', method: 'POST', url: 'https://hooks.example.com/welcome', next: 'done', onFailure: 'done' },
    tag: { type: 'profile-update', addTags: ['gold'], next: 'done' },
    done: { type: 'exit' },
  },
};

describeBrowser('console: automations', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  let api: <T>(method: string, route: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;
  let environmentId: string;
  let accessKey: string;
  /** Profile ids of customer-0, customer-1, customer-2. */
  const profiles: string[] = [];
  let apiKey = '';
  let waitingRun: Run;
  const env = '/engage/environments/shop';
  const ENV_API = '/environments/shop';

  /** An installation of the app bound to `externalId` (the SDK and the backend's binding, as an app does): its profile's id. */
  async function boundProfile(appKey: string, externalId: string): Promise<string> {
    const post = async (route: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect(res.status, `${route}: ${res.status}`).toBeLessThan(300);
      return (await res.json()) as Record<string, string>;
    };
    const device = await post('/v1/sdk/installations', { platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, { 'X-Service-App-Key': appKey });
    const { code } = await post('/v1/sdk/installation/binding-code', undefined, { authorization: `Bearer ${device.credential}` });
    await post('/v1/installation-binding-transitions', { bindingCode: code, target: { externalId } }, { authorization: `Bearer ${accessKey}`, 'Idempotency-Key': randomUUID() });
    return (await api<{ id: string }>('GET', `${ENV_API}/profiles/external/${externalId}`)).id;
  }

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-console-automations-' });
    await createOperator(sb);
    server = await sb.serve();
    const setUp = async () => {
      const token = await engageAdminToken(server.url, OPERATOR.email, OPERATOR.password);
      api = async <T,>(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
        const res = await fetch(`${server.url}/t/control/engage/admin${route}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.ok, `${method} ${route}: ${res.status} ${text}`).toBe(true);
        return (text ? JSON.parse(text) : null) as T;
      };
      environmentId = (await api<{ id: string }>('POST', '/environments', { name: 'shop' })).id;
      await api('POST', '/environments', { name: 'other' });
      const app = await api<{ id: string; appKey: string }>('POST', `${ENV_API}/apps`, { platform: 'IOS', name: 'ios' });
      accessKey = (await api<{ key: string }>('POST', `${ENV_API}/access-keys`, { apps: [app.id], name: 'backend' })).key;
      for (let i = 0; i < 3; i++) profiles.push(await boundProfile(app.appKey, `customer-${i}`));
    };
    [, s] = await Promise.all([setUp(), signInToConsole(server, undefined, '/engage/environments')]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await sb?.cleanup();
  });

  const h1 = (name: string) => s.page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  const status = (text: string | RegExp) => s.page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const file = () => s.page.getByLabel('Automation file (JSON)');
  const runs = () => api<{ items: Run[] }>('GET', `${ENV_API}/automations/welcome-flow/runs?size=100`).then((p) => p.items);

  it('refuses a file with the server’s violation beside it, creates one, shows its trigger key once, publishes it', async () => {
    const page = s.page;
    await s.open(`${env}/automations`);
    await page.getByText('No automation yet.').waitFor();
    await page.getByRole('link', { name: 'New automation' }).click();
    await h1('New automation');
    // The creation form is under its tab (it was under Overview): aria-current "true", the tab's own page being the list.
    expect(await page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name: 'Automations', exact: true }).getAttribute('aria-current')).toBe('true');
    // Prefilled with an example the server accepts.
    expect(JSON.parse(await file().inputValue())).toMatchObject({ key: 'order-shipped', start: 'is-member' });

    await file().fill('{"key": ');
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('alert').filter({ hasText: 'The file is not valid JSON' }).waitFor();

    const twoWaits = { ...FILE, steps: { ...FILE.steps, hold: { ...FILE.steps.hold, seconds: 60 } } };
    await file().fill(JSON.stringify(twoWaits, null, 2));
    await page.getByRole('button', { name: 'Create automation' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The server refused the file' });
    await refusal.getByRole('listitem').filter({ hasText: 'steps.hold: a wait needs exactly one of seconds, timeOfDay, event' }).waitFor();
    await refusal.getByText('invalid_request').waitFor();
    expect(await file().getAttribute('aria-invalid')).toBe('true');
    expect(await file().getAttribute('aria-describedby')).toContain('automation-file-error');
    await s.check('automation-create-refused');

    await file().fill(JSON.stringify(FILE, null, 2));
    await page.getByRole('button', { name: 'Create automation' }).click();
    await h1('Automation welcome-flow');
    await status('Created welcome-flow as a draft, version 1.');
    await page.getByText('It is shown only once').waitFor();
    apiKey = await page.getByRole('textbox', { name: 'Trigger key (automationApiKey)' }).inputValue();
    expect(apiKey.length).toBeGreaterThan(20);
    await page.getByText('Draft: never published').waitFor();

    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('dialog', { name: 'Publish version 1?' }).getByRole('button', { name: 'Publish version 1' }).click();
    await status('Published version 1: it takes runs.');
    await page.getByText('Active: it takes runs').waitFor();
    expect(await api('GET', `${ENV_API}/automations/welcome-flow`)).toMatchObject({ status: 'ACTIVE', publishedVersion: 1 });
  });

  it('draws the graph with the counts of runs started through the trigger endpoint', async () => {
    const page = s.page;
    const contexts = [{ plan: 'gold' }, { plan: 'silver' }, { plan: 'silver' }];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/api/v1/environments/${environmentId}/automations/${apiKey}/trigger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${accessKey}` },
        body: JSON.stringify({ profileId: profiles[i], context: contexts[i] }),
      });
      expect(res.status, await res.clone().text()).toBe(202);
    }
    // The gold customer's run goes is-gold → tag → done (EXITED); the others wait at hold for a purchase.
    for (let i = 0; ; i++) {
      const all = await runs();
      if (all.filter((r) => r.status === 'EXITED').length === 1 && all.filter((r) => r.status === 'WAITING').length === 2) break;
      expect(i, JSON.stringify(all)).toBeLessThan(200);
      await new Promise((r) => setTimeout(r, 50));
    }

    await page.getByRole('button', { name: 'Refresh counts' }).click();
    const table = page.getByRole('table', { name: 'Steps' });
    const row = (id: string) => table.getByRole('row').filter({ has: page.locator('td:first-child', { hasText: new RegExp(`^${id}( \\(start\\))?$`) }) });
    await row('is-gold').getByRole('cell', { name: '3', exact: true }).first().waitFor();
    // Step, Depth, Kind, What it does, Leads to, Entered, Succeeded, Failed, Waiting, Interrupted.
    expect(await row('is-gold').getByRole('cell').allTextContents()).toEqual(['is-gold (start)', '0', 'condition', 'context.plan in gold', 'yes: tag, no: hold', '3', '3', '0', '0', '0']);
    expect(await row('hold').getByRole('cell').allTextContents()).toEqual(['hold', '1', 'wait', 'for purchase, at most 1 d', 'event: tag, timeout: notify', '2', '0', '0', '2', '0']);
    expect(await row('tag').getByRole('cell').allTextContents()).toEqual(['tag', '2', 'profile-update', 'tag gold', 'done', '1', '1', '0', '0', '0']);
    expect(await row('notify').getByRole('cell').allTextContents()).toEqual(['notify', '2', 'webhook', 'POST hooks.example.com', 'done, on failure: done', '0', '0', '0', '0', '0']);
    expect(await row('done').getByRole('cell').allTextContents()).toEqual(['done', '3', 'exit', 'the run ends EXITED', 'the end (EXITED)', '1', '1', '0', '0', '0']);
    // The drawing says the same: one box per step, its counts, the branches labelled.
    const drawing = page.getByRole('img', { name: /^Graph of 5 steps in 4 layers/ });
    const texts = await drawing.locator('text').allTextContents();
    expect(texts).toEqual(expect.arrayContaining(['is-gold (start)', 'entered 3 · succeeded 3', 'failed 0 · waiting 2', 'yes', 'no', 'event', 'timeout', 'on failure']));
    const runCounts = page.getByRole('region', { name: 'Runs' });
    expect(await runCounts.locator('dd').allTextContents()).toEqual(['0', '2', '0', '1', '0', '0']);
    await s.check('automation-detail');
  });

  it('lists the runs by status and profile, shows a run’s timeline and cancels it', async () => {
    const page = s.page;
    await page.getByRole('link', { name: 'All 3 runs' }).click();
    await h1('Runs of welcome-flow');
    const table = page.getByRole('table', { name: 'Runs, newest first' });
    // A header row and a row per run.
    await expect.poll(() => table.getByRole('row').count()).toBe(4);
    await page.getByLabel('Status').selectOption('WAITING');
    await page.waitForURL(/status=WAITING/);
    await expect.poll(() => table.getByRole('row').count()).toBe(3);
    await page.getByLabel('Profile id').fill(profiles[1]);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/profileId=/);
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    waitingRun = (await runs()).find((r) => r.profileId === profiles[1])!;
    expect(waitingRun).toMatchObject({ status: 'WAITING', stepId: 'hold' });
    await s.check('automation-runs');

    await table.getByRole('link', { name: waitingRun.id }).click();
    await h1(`Run ${waitingRun.id}`);
    await page.getByText('event purchase').waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    const steps = timeline.getByRole('listitem');
    expect(await steps.count()).toBe(2);
    expect(await steps.nth(0).getByRole('heading').textContent()).toBe('is-gold (condition) Succeeded');
    expect(await steps.nth(1).getByRole('heading').textContent()).toBe('hold (wait) Running');
    expect(JSON.parse((await steps.nth(0).getByLabel('Output of is-gold').textContent()) ?? '')).toEqual({ matched: false });
    await s.check('automation-run');

    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('dialog', { name: 'Cancel the run?' }).getByRole('button', { name: 'Cancel run' }).click();
    await status('Cancelled: the run executes no further step.');
    await page.getByText('Cancelled', { exact: true }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    // The wait it was at is interrupted, not running any more.
    await steps.nth(1).getByRole('heading', { name: 'hold (wait) Interrupted' }).waitFor();
    expect((await runs()).find((r) => r.id === waitingRun.id)).toMatchObject({ status: 'CANCELLED' });
  });

  it('refuses a stale edit in words, and archives the automation once its key is typed', async () => {
    const page = s.page;
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'welcome-flow' }).click();
    await h1('Automation welcome-flow');
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await h1('Edit automation welcome-flow');
    expect(JSON.parse(await file().inputValue())).toMatchObject({ key: 'welcome-flow', start: 'is-gold' });
    // Someone else publishes version 2 meanwhile: this page, still at 1, is refused and overwrites nothing.
    await api('PUT', `${ENV_API}/automations/welcome-flow`, { ...FILE, name: 'Changed elsewhere' }, { 'If-Match': '"1"' });
    await file().fill(JSON.stringify({ ...FILE, name: 'Changed here' }, null, 2));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone changed this automation since you opened it' }).waitFor();
    await page.getByRole('alert').getByText('automation_version_conflict').waitFor();
    expect(await api('GET', `${ENV_API}/automations/welcome-flow`)).toMatchObject({ version: 2, name: 'Changed elsewhere' });

    await page.getByRole('link', { name: 'Back to the automation' }).click();
    await h1('Automation welcome-flow');
    await page.getByText('2 (latest); runs enter version 2').waitFor();
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive the automation?' });
    await dialog.getByLabel('Type welcome-flow to confirm').fill('welcome-flow');
    await dialog.getByRole('button', { name: 'Archive automation' }).click();
    await status('Archived: its runs under way were cancelled.');
    expect(await api('GET', `${ENV_API}/automations/welcome-flow`)).toMatchObject({ status: 'ARCHIVED', runs: { EXITED: 1, CANCELLED: 2 } });
    await page.getByText('Archived: for good').waitFor();
    // The runs that waited at hold ended (one cancelled, one by the archive): hold waits for none, its two executions were interrupted.
    const hold = page.getByRole('table', { name: 'Steps' }).getByRole('row').filter({ has: page.locator('td:first-child', { hasText: /^hold$/ }) });
    expect((await hold.getByRole('cell').allTextContents()).slice(5)).toEqual(['2', '0', '0', '0', '2']);
    expect(await page.getByRole('img', { name: /^Graph of/ }).locator('text').allTextContents()).not.toContain('failed 0 · waiting 2');
    expect(await page.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);
  });

  it('does not find the automation or its runs from another environment', async () => {
    const page = s.page;
    await s.open(`/engage/environments/other/automations/welcome-flow/runs/${waitingRun.id}`);
    await page.getByRole('alert').filter({ hasText: 'There is no run with this id in the environment.' }).waitFor();
    await page.getByRole('link', { name: 'welcome-flow', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'There is no automation with this key in the environment.' }).waitFor();
    await page.getByRole('alert').getByText('automation_not_found').waitFor();
  });

  it('calls only documented operations and shows no error', () => {
    expect(undocumentedCalls(s.requests)).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
