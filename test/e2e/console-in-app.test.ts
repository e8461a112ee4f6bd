import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM } from '../helpers/browser';
import { OPERATOR, createOperator, undocumentedCalls, signInToConsole, type ConsoleSession } from '../helpers/console';
import { engageAdminToken } from '../helpers/engage-admin-token';

/**
 * The console's in-app messages (issue 27 "Administration") on the built executable, as an
 * operator uses them: a message made in the form (an event trigger with a property condition,
 * the audience with the flags' condition editor, a cap, two locales with their layouts), its
 * preview following what is typed, a refusal of the server shown at its field; published, edited
 * into an experiment of two variants (the list marks the unpublished edit), published again and
 * paused; its results per variant drawn after interaction counts are written; archived after its
 * key is typed; a layout written with the keyboard alone. axe-core and the 390 px check on every
 * page; only documented calls.
 */
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;

/** Interaction counts written straight into the sandbox's database (the devices' INTERACTION_TRACKED counting is ingest's, tested there). */
async function insertInteractions(sb: Sandbox, rows: unknown[][]) {
  const text = 'INSERT INTO in_app_interactions (environment_id, message_id, variant_id, type, day, count) VALUES (?, ?, ?, ?, ?, ?)';
  if (sb.database) {
    const c = new pg.Client({ connectionString: sb.database });
    await c.connect();
    try {
      let n = 0;
      const numbered = text.replace(/\?/g, () => `$${++n}`);
      for (const r of rows) await c.query(numbered, r);
    } finally {
      await c.end();
    }
    return;
  }
  const db = new BetterSqlite3(path.join(sb.dataDir, 'engage.db'));
  try {
    db.pragma('busy_timeout = 5000');
    for (const r of rows) db.prepare(text).run(...r);
  } finally {
    db.close();
  }
}

interface View {
  id: string;
  environmentId: string;
  status: string;
  version: number;
  publishedVersion: number | null;
  draftPending: boolean;
  definition: Record<string, unknown>;
}

describeBrowser('console: in-app messages', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  let api: <T>(method: string, route: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;
  let iosAppId: string;
  const env = '/engage/environments/shop';
  const ENV_API = '/environments/shop';

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-console-in-app-' });
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
      iosAppId = (await api<{ id: string }>('POST', `${ENV_API}/apps`, { platform: 'IOS', name: 'ios' })).id;
      await api('POST', `${ENV_API}/apps`, { platform: 'ANDROID', name: 'android' });
    };
    [, s] = await Promise.all([setUp(), signInToConsole(server, undefined, '/engage/environments')]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await sb?.cleanup();
  });

  const h1 = (name: string) => s.page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  const status = (text: string | RegExp) => s.page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const message = () => api<View>('GET', `${ENV_API}/in-app-messages/welcome`);

  it('creates a message through the form, its preview following what is typed, a refusal shown at its field', async () => {
    const page = s.page;
    await s.open(`${env}/in-app-messages`);
    await page.getByText('No in-app message yet.').waitFor();
    await s.check('in-app-empty');
    await page.getByRole('link', { name: 'New message' }).click();
    await h1('New in-app message');
    await page.getByLabel('Key', { exact: true }).fill('welcome');
    await page.getByLabel('Description').fill('Welcome offer');
    await page.getByRole('checkbox', { name: 'ios (iOS)' }).check();

    await page.getByLabel('Trigger 1: type').selectOption('EVENT');
    await page.getByLabel('Trigger 1: event name').fill('purchase');
    await page.getByRole('button', { name: 'Add a property condition to trigger 1' }).click();
    await page.getByLabel('Trigger 1, property condition 1: property').fill('amount');
    await page.getByLabel('Trigger 1, property condition 1: operator').selectOption('gt');
    await page.getByLabel('Trigger 1, property condition 1: values').fill('10');

    await page.getByRole('button', { name: 'Add a condition to the audience' }).click();
    await page.getByLabel('Audience condition 1: attribute').selectOption('appVersion');
    await page.getByLabel('Audience condition 1: operator').selectOption('semverGte');
    await page.getByLabel('Audience condition 1: values').fill('2.0.0');

    await page.getByLabel('Priority', { exact: true }).fill('5');
    await page.getByRole('checkbox', { name: /frequency cap/ }).check();
    await page.getByLabel('At most (impressions)').fill('2');
    await page.getByLabel('Per period of').fill('1');
    await page.getByLabel('Period unit').selectOption('days');

    // The preview of each locale follows every keystroke.
    const en = page.getByRole('figure', { name: 'Preview of en' });
    await en.getByText('Title', { exact: true }).waitFor();
    await page.getByLabel('en: title').fill('Welcome');
    await en.getByText('Welcome', { exact: true }).waitFor();
    await page.getByLabel('en: title').fill('Welcome back');
    await en.getByText('Welcome back', { exact: true }).waitFor();
    await page.getByLabel('en: body').fill('10% off your next order.');
    await en.getByText('10% off your next order.', { exact: true }).waitFor();
    await page.getByLabel('en: button 1 label').fill('Not now');
    await page.getByRole('button', { name: 'Add a button to en' }).click();
    await page.getByLabel('en: button 2 label').fill('Shop');
    await page.getByLabel('en: button 2 action').selectOption('DEEP_LINK');
    await page.getByLabel('en: button 2 deep link').fill('no link');
    expect(await en.locator('.in-app-button').allTextContents()).toEqual(['Not now', 'Shop']);
    await en.getByText('Shop: opens no link').waitFor();

    await page.getByLabel('Add a locale').fill('de');
    await page.getByRole('button', { name: 'Add locale' }).click();
    const de = page.getByRole('figure', { name: 'Preview of de' });
    await page.getByLabel('de: title').fill('Willkommen zurück');
    await page.getByLabel('de: body').fill('10 % Rabatt auf die nächste Bestellung.');
    await de.getByText('Willkommen zurück', { exact: true }).waitFor();
    await s.check('in-app-create');

    // The server refuses the deep link: said in the alert, and beside the field.
    await page.getByRole('button', { name: 'Create message' }).click();
    await page.getByRole('alert').filter({ hasText: 'content.en.buttons[1].deepLink' }).waitFor();
    const deepLink = page.getByLabel('en: button 2 deep link');
    expect(await deepLink.getAttribute('aria-invalid')).toBe('true');
    const describedBy = await deepLink.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toMatch(/must/);
    await deepLink.fill('shop://offers/welcome');
    await page.getByRole('button', { name: 'Create message' }).click();
    await h1('In-app message welcome');

    const m = await message();
    expect(m).toMatchObject({ status: 'DRAFT', version: 1, publishedVersion: null, draftPending: true });
    expect(m.definition).toEqual({
      key: 'welcome',
      description: 'Welcome offer',
      targetApps: [iosAppId],
      audience: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }],
      triggers: [{ type: 'EVENT', eventName: 'purchase', conditions: [{ property: 'amount', operator: 'gt', values: [10] }] }],
      priority: 5,
      frequencyCap: { impressions: 2, periodSeconds: 86_400 },
      defaultLocale: 'en',
      content: {
        en: { title: 'Welcome back', body: '10% off your next order.', buttons: [{ label: 'Not now', action: 'DISMISS' }, { label: 'Shop', action: 'DEEP_LINK', deepLink: 'shop://offers/welcome' }] },
        de: { title: 'Willkommen zurück', body: '10 % Rabatt auf die nächste Bestellung.' },
      },
    });
    // The page reads the stored message back into the form.
    expect(await page.getByLabel('Trigger 1, property condition 1: values').inputValue()).toBe('10');
    expect(await page.getByLabel('de: title').inputValue()).toBe('Willkommen zurück');
  });

  it('publishes, edits it into an experiment (the list marks the unpublished edit), refuses a stale save in words, publishes again and pauses', async () => {
    const page = s.page;
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('dialog', { name: 'Publish version 1?' }).getByRole('button', { name: 'Publish version 1' }).click();
    await status('Published version 1');
    expect(await message()).toMatchObject({ status: 'ACTIVE', publishedVersion: 1, draftPending: false });

    await page.getByRole('checkbox', { name: /Run an experiment/ }).check();
    await page.getByLabel('Variant 1 key').fill('control');
    await page.getByLabel('Variant 2 key').fill('bold');
    await page.getByLabel('Variant 1 weight').fill('4000');
    await page.getByText('Weights sum to 9,000 of 10,000: they must sum to exactly 10,000.').waitFor();
    await page.getByLabel('Variant 2 weight').fill('6000');
    await page.getByText('Weights sum to 10,000 of 10,000.').waitFor();
    await page.getByLabel('Variant 2, en: title').fill('WELCOME BACK');
    await page.getByRole('figure', { name: 'Preview of variant bold in en' }).getByText('WELCOME BACK', { exact: true }).waitFor();
    await page.getByRole('figure', { name: 'Preview of variant control in en' }).getByText('Welcome back', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await status('Saved as version 2. Devices keep the published version');
    await s.check('in-app-detail');
    const edited = await message();
    expect(edited).toMatchObject({ status: 'ACTIVE', version: 2, publishedVersion: 1, draftPending: true });
    expect(edited.definition.content).toBeUndefined();
    expect((edited.definition.variants as { key: string; weight: number }[]).map((v) => [v.key, v.weight])).toEqual([
      ['control', 4000],
      ['bold', 6000],
    ]);

    // Someone else saves version 3 meanwhile: this page, still at 2, is refused in words and overwrites nothing.
    await api('PUT', `${ENV_API}/in-app-messages/welcome`, { ...edited.definition, description: 'Changed elsewhere' }, { 'If-Match': '"2"' });
    await page.getByLabel('Description').fill('Changed here');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone changed this message since you opened it' }).waitFor();
    await page.getByRole('alert').getByText('message_version_conflict').waitFor();
    expect(await message()).toMatchObject({ version: 3, definition: { description: 'Changed elsewhere' } });

    await s.open(`${env}/in-app-messages`);
    const row = page.getByRole('row').filter({ hasText: 'welcome' });
    await row.getByText('Unpublished edit').waitFor();
    await row.getByText('Active', { exact: true }).waitFor();
    await row.getByRole('cell', { name: '3 (published: 1)' }).waitFor();
    await s.check('in-app-list');
    await page.getByLabel('Status').selectOption('PAUSED');
    await page.getByText('No paused message.').waitFor();

    await s.open(`${env}/in-app-messages/welcome`);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('dialog', { name: 'Publish version 3?' }).getByRole('button', { name: 'Publish version 3' }).click();
    await status('Published version 3');
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('dialog', { name: 'Pause the message?' }).getByRole('button', { name: 'Pause message' }).click();
    await status(/^Paused/);
    expect(await message()).toMatchObject({ status: 'PAUSED', publishedVersion: 3, draftPending: false });
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();

    await s.open(`${env}/in-app-messages?status=PAUSED`);
    await page.getByRole('link', { name: 'welcome', exact: true }).waitFor();
  });

  it('shows the results per variant as a chart with the click-through rate, and as a table', async () => {
    const page = s.page;
    const m = await message();
    const today = new Date().toISOString().slice(0, 10);
    await insertInteractions(sb, [
      [m.environmentId, m.id, 'control', 'IMPRESSION', today, 40],
      [m.environmentId, m.id, 'control', 'CLICK', today, 10],
      [m.environmentId, m.id, 'control', 'DISMISS', today, 20],
      [m.environmentId, m.id, 'bold', 'IMPRESSION', today, 50],
      [m.environmentId, m.id, 'bold', 'CLICK', today, 20],
      [m.environmentId, m.id, 'bold', 'CONVERSION', today, 5],
    ]);
    await s.open(`${env}/in-app-messages/welcome`);
    const results = page.getByRole('region', { name: 'Results' });
    await results.getByRole('button', { name: 'Refresh results' }).click();
    const bold = results.getByRole('figure', { name: 'Variant bold' });
    await bold.getByText('Click-through rate 40%, conversion rate 10% of 50 impressions.').waitFor();
    expect(await bold.getByRole('listitem').allTextContents()).toEqual(['Impressions50', 'Clicks20', 'Dismissals0', 'Conversions5']);
    await results.getByRole('figure', { name: 'Variant control' }).getByText('Click-through rate 25%, conversion rate 0% of 40 impressions.').waitFor();
    const table = results.getByRole('table', { name: 'Results per variant' });
    expect(await table.getByRole('row').filter({ hasText: 'bold' }).getByRole('cell').allTextContents()).toEqual(['50', '20', '0', '5', '40%']);
    await s.check('in-app-results');
  });

  it('archives the message once its key is typed', async () => {
    const page = s.page;
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive the message?' });
    await dialog.getByLabel('Type welcome to confirm').fill('welcome');
    await dialog.getByRole('button', { name: 'Archive message' }).click();
    await status(/^Archived/);
    await page.getByText('An archived message cannot be edited.').waitFor();
    expect(await message()).toMatchObject({ status: 'ARCHIVED' });
    expect(await page.getByRole('button', { name: 'Publish', exact: true }).count()).toBe(0);
  });

  it('writes a layout with the keyboard alone, the preview following', async () => {
    const page = s.page;
    await s.open(`${env}/new-in-app-message`);
    const focused = () => page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''");
    /** Tab (or Shift+Tab) until the focused control is named `name`. */
    const tabTo = async (name: string, back = false) => {
      for (let i = 0; i < 80; i++) {
        if ((await focused()) === name) return;
        await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
      }
      throw new Error(`${name} not reached with the keyboard (focus on ${await focused()})`);
    };
    await page.getByLabel('Key', { exact: true }).focus();
    await page.keyboard.type('keyboard');
    await tabTo('en: title');
    await page.keyboard.type('Typed title');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('en: body');
    await page.keyboard.type('Typed body');
    const preview = page.getByRole('figure', { name: 'Preview of en' });
    await preview.getByText('Typed title', { exact: true }).waitFor();
    await preview.getByText('Typed body', { exact: true }).waitFor();
    await tabTo('Add a button to en');
    await page.keyboard.press('Enter');
    await tabTo('en: button 2 label', true);
    await page.keyboard.type('Later');
    expect(await preview.locator('.in-app-button').allTextContents()).toEqual(['OK', 'Later']);
    await tabTo('Create message');
    await page.keyboard.press('Enter');
    await h1('In-app message keyboard');
    expect((await api<View>('GET', `${ENV_API}/in-app-messages/keyboard`)).definition.content).toEqual({
      en: { title: 'Typed title', body: 'Typed body', buttons: [{ label: 'OK', action: 'DISMISS' }, { label: 'Later', action: 'DISMISS' }] },
    });
  });

  it('calls only documented operations and shows no error', () => {
    expect(undocumentedCalls(s.requests)).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
