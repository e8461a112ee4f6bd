import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM } from '../helpers/browser';
import { OPERATOR, createOperator, undocumentedCalls, signInToConsole, type ConsoleSession } from '../helpers/console';
import { engageAdminToken } from '../helpers/engage-admin-token';

/**
 * The console's feature flags, subscription lists and push channels (issue 26 "Administration")
 * on the built executable, as an operator uses them: a flag made in the form, a targeting rule
 * with a 30% rollout set with the slider (and later a rollout plan scheduled), saved and then served to an installation through
 * POST /v1/sdk/sync; an edit, a version conflict shown in words, a rollback; the rule form worked
 * with the keyboard alone; exposures of an experiment counted after a FLAG_EXPOSED batch and drawn
 * per variant; a subscription list and an app's channel and category created, edited, deleted and
 * seen by the sync. axe-core and the 390 px check on every page.
 */
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;

interface SyncDoc {
  module: string;
  key: string;
  payload: Record<string, unknown>;
}

describeBrowser('console: feature flags, subscription lists and push channels', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  let api: <T>(method: string, route: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;
  /** Installations of the iOS app: `fresh` on 2.1.0 (the rule matches), `old` on 1.0.0 (it does not). */
  let fresh: { installationId: string; credential: string };
  let old: { installationId: string; credential: string };
  const env = '/engage/environments/shop';
  const ENV_API = '/environments/shop';

  async function bootstrap(appKey: string, appVersion: string) {
    const res = await fetch(`${server.url}/v1/sdk/installations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey },
      body: JSON.stringify({ platform: 'IOS', locale: 'en-GB', timezone: 'UTC', sdkVersion: '1', appVersion }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { installationId: string; credential: string };
  }
  /** The full sync document of one module and key for an installation (undefined: not served). */
  async function synced(who: { credential: string }, module: string, key: string) {
    const res = await fetch(`${server.url}/v1/sdk/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who.credential}` },
      body: JSON.stringify({ cursor: null, modules: [module] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { documents: SyncDoc[] };
    return body.documents.find((d) => d.module === module && d.key === key)?.payload;
  }

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-console-flags-' });
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
      await api('POST', '/environments', { name: 'shop' });
      const ios = await api<{ appKey: string }>('POST', `${ENV_API}/apps`, { platform: 'IOS', name: 'ios' });
      await api('POST', `${ENV_API}/apps`, { platform: 'ANDROID', name: 'android' });
      fresh = await bootstrap(ios.appKey, '2.1.0');
      old = await bootstrap(ios.appKey, '1.0.0');
    };
    [, s] = await Promise.all([setUp(), signInToConsole(server, undefined, '/engage/environments')]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await sb?.cleanup();
  });

  const h1 = (name: string) => s.page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  const status = (text: string | RegExp) => s.page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const definition = async (key: string) => (await api<{ version: number; definition: { rules: unknown[] } }>('GET', `${ENV_API}/flags/${key}`));

  it('creates a flag, adds a targeting rule with a 30% rollout set with the slider, saves it, and the sync serves it', async () => {
    const page = s.page;
    await s.open(`${env}/flags`);
    await page.getByText('No feature flag yet.').waitFor();
    await s.check('flags-empty');
    await page.getByRole('link', { name: 'Create a flag' }).click();
    await h1('Create a flag');
    await page.getByLabel('Key', { exact: true }).fill('new-checkout');
    await page.getByLabel('Description').fill('The new checkout flow');
    await page.getByLabel('Bucket by').selectOption('installation');
    await page.getByRole('checkbox', { name: 'ios (iOS)' }).check();
    await s.check('flag-create');
    await page.getByRole('button', { name: 'Create flag' }).click();
    await h1('Flag new-checkout');

    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByLabel('Rule 1, condition 1: attribute').selectOption('appVersion');
    await page.getByLabel('Rule 1, condition 1: operator').selectOption('semverGte');
    await page.getByLabel('Rule 1, condition 1: values').fill('2.0.0');
    await page.getByLabel('Rule 1: percentage of on').fill('30');
    expect(await page.getByLabel('Rule 1: weight of on').inputValue()).toBe('3000');
    expect(await page.getByLabel('Rule 1: weight of off').inputValue()).toBe('7000');
    await page.getByText('Weights sum to 10,000 of 10,000.').waitFor();
    await s.check('flag-rules');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await status('Saved as version 2');
    const saved = await definition('new-checkout');
    expect(saved.version).toBe(2);
    expect(saved.definition.rules).toEqual([
      { conditions: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }], rollout: { variants: [{ variant: 'on', weight: 3000 }, { variant: 'off', weight: 7000 }] } },
    ]);
    // Served to the installation on 2.1.0 by the rollout (SPLIT); the one on 1.0.0 gets the default.
    expect(await synced(fresh, 'FEATURE_FLAGS', 'new-checkout')).toMatchObject({ reason: 'SPLIT' });
    expect(['on', 'off']).toContain((await synced(fresh, 'FEATURE_FLAGS', 'new-checkout'))?.variantKey);
    expect(await synced(old, 'FEATURE_FLAGS', 'new-checkout')).toEqual({ variantKey: 'off', value: false, reason: 'DEFAULT' });
  });

  it('edits the rule to serve one variant, shows a version conflict in words, rolls back to the rollout', async () => {
    const page = s.page;
    await page.getByRole('radio', { name: 'One variant' }).check();
    await page.getByLabel('Rule 1: variant').selectOption('on');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await status('Saved as version 3');
    expect(await synced(fresh, 'FEATURE_FLAGS', 'new-checkout')).toEqual({ variantKey: 'on', value: true, reason: 'TARGETING_MATCH' });

    // Someone else saves version 4 meanwhile: this form, still at 3, is refused with words.
    const current = await definition('new-checkout');
    await api('PUT', `${ENV_API}/flags/new-checkout`, { ...current.definition, description: 'Changed elsewhere' }, { 'If-Match': '"3"' });
    await page.getByLabel('Description').fill('Changed here');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone changed this flag since you opened it' }).waitFor();
    await page.getByRole('alert').getByText('flag_version_conflict').waitFor();
    expect((await definition('new-checkout')).version).toBe(4);

    // Reading the page again starts the form from version 4; roll back to version 2 (the 30% rollout).
    await s.open(`${env}/flags/new-checkout`);
    const versions = page.getByRole('table', { name: 'Versions' });
    await versions.getByText('4 (current)').waitFor();
    await s.check('flag-detail');
    await versions.getByRole('button', { name: 'Roll back to version 2' }).click();
    await status('Rolled back: version 5 has version 2’s definition.');
    await versions.getByText('5 (current)').waitFor();
    await versions.getByRole('cell', { name: 'rollback', exact: true }).waitFor();
    expect(await page.getByLabel('Rule 1: weight of on').inputValue()).toBe('3000');
    const back = await definition('new-checkout');
    expect(back.version).toBe(5);
    expect(back.definition.rules).toEqual(saved2Rules);
    expect(await synced(fresh, 'FEATURE_FLAGS', 'new-checkout')).toMatchObject({ reason: 'SPLIT' });

    // A scheduled change: listed as pending, then cancelled.
    await page.getByRole('button', { name: 'Schedule the edited definition' }).click();
    await status(/is scheduled for/);
    const schedules = page.getByRole('table', { name: 'Scheduled changes' });
    await schedules.getByText('pending').waitFor();
    await schedules.getByRole('button', { name: /^Cancel the change due/ }).click();
    await schedules.getByText('cancelled').waitFor();
    // A rollout plan of the saved rule's split (three steps by default): one pending change per step.
    await page.getByRole('button', { name: 'Schedule the rollout plan' }).click();
    await status(/The rollout plan is scheduled: 3 changes of rule 1/);
    expect((await api<{ items: unknown[] }>('GET', `${ENV_API}/flags/new-checkout/schedules?status=PENDING`)).items).toHaveLength(3);

    // Archive: devices lose the flag (a tombstone); restore: they get it again.
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await status('Archived as version 6');
    expect(await synced(fresh, 'FEATURE_FLAGS', 'new-checkout')).toBeUndefined();
    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    await status('Restored as version 7.');
    expect(await synced(fresh, 'FEATURE_FLAGS', 'new-checkout')).toMatchObject({ reason: 'SPLIT' });
  });

  it('edits the rule form with the keyboard alone', async () => {
    const page = s.page;
    await api('POST', `${ENV_API}/flags`, { key: 'banner', kind: 'STRING', variants: { a: 'hello', b: 'bye' }, defaultVariant: 'a', offVariant: 'b', bucketBy: 'installation', rules: [] });
    await s.open(`${env}/flags/banner`);
    const focused = () => page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''");
    /** Tab (or Shift+Tab) until the focused control is named `name`. */
    const tabTo = async (name: string, back = false) => {
      for (let i = 0; i < 60; i++) {
        if ((await focused()) === name) return;
        await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      }
      throw new Error(`${name} not reached with the keyboard (focus on ${await focused()})`);
    };
    await page.getByRole('heading', { name: 'Rules', exact: true }).waitFor();
    await page.getByText('No rule: every device gets the default variant.').waitFor();
    await page.getByRole('button', { name: 'Add a rule' }).focus();
    await page.keyboard.press('Enter');
    await tabTo('Rule 1, condition 1: values', true);
    await page.keyboard.type('3.0.0');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Rule 1, condition 1: negate');
    await page.keyboard.press('Space');
    await tabTo('Rule 1: percentage of a');
    await page.keyboard.press('End');
    for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowLeft');
    expect(await page.getByLabel('Rule 1: weight of a').inputValue()).toBe('7500');
    expect(await page.getByLabel('Rule 1: weight of b').inputValue()).toBe('2500');
    await tabTo('Save as a new version');
    await page.keyboard.press('Enter');
    await status('Saved as version 2');
    expect((await definition('banner')).definition.rules).toEqual([
      { conditions: [{ attribute: 'appVersion', operator: 'semverGte', values: ['3.0.0'], negate: true }], rollout: { variants: [{ variant: 'a', weight: 7500 }, { variant: 'b', weight: 2500 }] } },
    ]);
  });

  it('shows the exposures of an experiment per variant after a FLAG_EXPOSED batch', async () => {
    const page = s.page;
    await api('POST', `${ENV_API}/flags`, {
      key: 'paywall', kind: 'BOOLEAN', variants: { on: true, off: false }, defaultVariant: 'off', offVariant: 'off', bucketBy: 'installation',
      rules: [{ experiment: { experimentId: 'paywall-test', variants: [{ variant: 'on', weight: 5000 }, { variant: 'off', weight: 5000 }], coverage: 10000 } }],
    });
    await s.open(`${env}/flags/paywall`);
    await page.getByText('No exposure counted yet', { exact: false }).waitFor();
    const exposed = async (who: { credential: string }, variantKey: string) => {
      const res = await fetch(`${server.url}/v1/sdk/operations:batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${who.credential}` },
        body: JSON.stringify({
          batchId: randomUUID(),
          operations: [{ operationId: randomUUID(), generation: 0, type: 'FLAG_EXPOSED', occurredAt: new Date().toISOString(), payload: { flagKey: 'paywall', experimentId: 'paywall-test', variantKey, revision: 1 } }],
        }),
      });
      expect(res.status).toBe(202);
    };
    await exposed(fresh, 'on');
    await exposed(old, 'off');
    await exposed(old, 'off'); // once per installation per experiment version
    await page.getByRole('button', { name: 'Refresh exposures' }).click();
    const chart = page.getByRole('figure', { name: 'Experiment paywall-test' });
    await chart.getByRole('listitem').first().waitFor();
    const bars = await chart.getByRole('listitem').allTextContents();
    expect(bars.sort()).toEqual(['off (version 1)1 exposed', 'on (version 1)1 exposed']);
    await chart.getByText('2 installations exposed in all.').waitFor();
    await s.check('flag-exposures');
  });

  it('creates, edits and deletes a subscription list, seen by the sync', async () => {
    const page = s.page;
    await s.open(`${env}/lists`);
    await page.getByText('No subscription list yet.').waitFor();
    await s.check('lists');
    await page.getByRole('link', { name: 'Create a list' }).click();
    await h1('Create a list');
    await page.getByLabel('Key', { exact: true }).fill('news');
    await page.getByLabel('Display name').fill('News');
    await page.getByRole('checkbox', { name: 'Email' }).check();
    await s.check('list-create');
    await page.getByRole('button', { name: 'Create list' }).click();
    await h1('List news');
    expect(await synced(fresh, 'PREFERENCES', 'list/news')).toMatchObject({ displayName: 'News', channels: ['PUSH', 'EMAIL'], defaultSubscribed: true, critical: false });
    await page.getByLabel('Display name').fill('Newsletter');
    await page.getByRole('checkbox', { name: /^Critical/ }).check();
    await page.getByRole('button', { name: 'Save list' }).click();
    await status('Saved Newsletter');
    await s.check('list-detail');
    expect(await synced(fresh, 'PREFERENCES', 'list/news')).toMatchObject({ displayName: 'Newsletter', critical: true, defaultSubscribed: true });
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByLabel('Type news to confirm').fill('news');
    await page.getByRole('button', { name: 'Delete list' }).click();
    await h1('Subscription lists');
    await page.getByText('No subscription list yet.').waitFor();
    expect(await synced(fresh, 'PREFERENCES', 'list/news')).toBeUndefined();
  });

  it('creates, edits and deletes an Android channel and an iOS category on their apps’ pages', async () => {
    const page = s.page;
    await s.open(`${env}/apps/android`);
    const section = page.getByRole('region', { name: 'Notification channels' });
    await section.getByText('No channel yet.').waitFor();
    await section.getByLabel('Channel id').fill('orders');
    await section.getByLabel('Name', { exact: true }).fill('Orders');
    await section.getByLabel('Importance').selectOption('HIGH');
    await section.getByRole('radio', { name: 'Silent' }).check();
    await section.getByRole('button', { name: 'Create channel' }).click();
    await status('Created channel orders.');
    await section.getByRole('cell', { name: 'Orders (high)' }).waitFor();
    await section.getByRole('button', { name: 'Edit channel orders' }).click();
    await section.getByLabel('Name', { exact: true }).fill('Order news');
    await section.getByRole('button', { name: 'Save channel' }).click();
    await section.getByRole('cell', { name: 'Order news (high)' }).waitFor();
    expect(await api('GET', `${ENV_API}/apps/android/push-channels/orders`)).toMatchObject({ kind: 'ANDROID_CHANNEL', name: 'Order news', importance: 'HIGH', sound: null });
    await s.check('app-channels');
    await section.getByRole('button', { name: 'Delete channel orders' }).click();
    await page.getByLabel('Type orders to confirm').fill('orders');
    await page.getByRole('button', { name: 'Delete channel', exact: true }).click();
    await section.getByText('No channel yet.').waitFor();

    await s.open(`${env}/apps/ios`);
    const categories = page.getByRole('region', { name: 'Notification categories' });
    await categories.getByLabel('Category identifier').fill('reply');
    await categories.getByLabel('Action 1 identifier').fill('answer');
    await categories.getByLabel('Action 1 title').fill('Answer');
    await categories.getByRole('button', { name: 'Create category' }).click();
    await categories.getByRole('cell', { name: 'Answer', exact: true }).waitFor();
    await s.check('app-categories');
    expect(await synced(fresh, 'PUSH', 'category/reply')).toEqual({ key: 'reply', kind: 'IOS_CATEGORY', actions: [{ id: 'answer', title: 'Answer', foreground: true }] });
  });

  it('calls only documented operations and shows no error', () => {
    expect(undocumentedCalls(s.requests)).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});

const saved2Rules = [
  { conditions: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }], rollout: { variants: [{ variant: 'on', weight: 3000 }, { variant: 'off', weight: 7000 }] } },
];
