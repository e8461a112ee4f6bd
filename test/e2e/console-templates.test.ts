import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/binary';
import { HAS_CHROMIUM } from '../helpers/browser';
import { OPERATOR, apiCalls, createOperator, undocumentedCalls, signInToConsole, type ConsoleSession } from '../helpers/console';
import { engageAdminToken } from '../helpers/engage-admin-token';
import { createPushSandbox, until, type PushSandbox } from '../helpers/push-e2e';

/**
 * The console's templates, sends and installations pages (issue 25) on the built executable, as
 * a person uses them: write a template with two locales, preview both while typing sample
 * variables, publish, edit a draft, test-send it to a test group holding a device registered
 * through the mobile edge, see the push reach the loopback APNs and the delivery shown as
 * delivered on the send's page; look the installation and its profile up and read their timelines
 * (before and after a user signs in on the device); archive by typing. The environment has an
 * Android app too, so the preview's Android frame is seen.
 */
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;
const TOPIC = 'com.example.console';
const FILE = {
  key: 'order.shipped',
  apps: ['ios', 'android'],
  defaultLocale: 'en',
  variables: { orderId: { type: 'string' }, amount: { type: 'number' } },
  localizations: {
    en: { title: 'Order {{orderId}} shipped', body: 'Total {{amount}}' },
    de: { title: 'Bestellung {{orderId}} versandt', body: 'Summe {{amount}}' },
  },
};

/** An iOS installation bootstrapped through the mobile edge with push authorized and a token: its id and credential. */
async function registerDevice(server: RunningServer, appKey: string) {
  const res = await fetch(`${server.url}/v1/sdk/installations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey },
    body: JSON.stringify({ platform: 'IOS', locale: 'de-DE', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
  });
  const s = (await res.json()) as { installationId: string; credential: string };
  await operations(server, s.credential, [
    ['PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }],
    ['PUSH_TOKEN_SET', { token: randomBytes(32).toString('hex') }],
  ]);
  return s;
}

async function operations(server: RunningServer, credential: string, ops: [string, unknown][]) {
  const res = await fetch(`${server.url}/v1/sdk/operations:batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
    body: JSON.stringify({ batchId: randomUUID(), operations: ops.map(([type, payload]) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload })) }),
  });
  expect(res.status).toBe(202);
}

describeBrowser('console: templates, test sends, sends and installations', () => {
  let p: PushSandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  let device: { installationId: string; credential: string };
  let accessKey: string;
  const env = '/engage/environments/shop';
  const ENV_API = '/environments/shop';

  beforeAll(async () => {
    // One CLI process (the operator, before anything can sign in); the rest through the
    // administration API with the operator's token, while the browser starts and signs in.
    p = await createPushSandbox({ prefix: 'engage-console-templates-', topic: TOPIC });
    await createOperator(p.sandbox);
    server = await p.sandbox.serve({ env: p.env });
    const setUp = async () => {
      const token = await engageAdminToken(server.url, OPERATOR.email, OPERATOR.password);
      const api = async <T,>(method: string, route: string, body?: unknown): Promise<T> => {
        const res = await fetch(`${server.url}/t/control/engage/admin${route}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.ok, `${method} ${route}: ${res.status} ${text}`).toBe(true);
        return (text ? JSON.parse(text) : null) as T;
      };
      await api('POST', '/environments', { name: 'shop' });
      const ios = await api<{ appKey: string }>('POST', `${ENV_API}/apps`, { platform: 'IOS', name: 'ios' });
      // An Android app too: the preview shows its phone frame beside the iPhone's (no push goes to it).
      await api('POST', `${ENV_API}/apps`, { platform: 'ANDROID', name: 'android' });
      const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      p.apns.addKey('KEYID12345', 'TEAMID1234', pem);
      await api('PUT', `${ENV_API}/apps/ios/credentials/apns`, { keyId: 'KEYID12345', teamId: 'TEAMID1234', topic: TOPIC, privateKey: pem });
      await api('POST', `${ENV_API}/templates`, { key: 'welcome', apps: ['ios'], defaultLocale: 'en', localizations: { en: { title: 'Welcome', body: 'Hello' } } });
      await api('POST', `${ENV_API}/templates/welcome/publish`);
      device = await registerDevice(server, ios.appKey);
      accessKey = (await api<{ key: string }>('POST', `${ENV_API}/access-keys`, { apps: ['ios'], name: 'backend' })).key;
      await api('POST', `${ENV_API}/test-groups`, { name: 'phones', members: [{ installationId: device.installationId }] });
    };
    [, s] = await Promise.all([setUp(), signInToConsole(server, undefined, '/engage/environments')]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await p?.close();
  });

  it('creates a template from its file, previews both locales while typing, publishes, saves a draft', async () => {
    const page = s.page;
    await s.open(`${env}/templates`);
    await page.getByRole('link', { name: 'welcome' }).waitFor();
    await s.check('templates');
    await page.getByRole('link', { name: 'Create a template' }).click();
    await page.getByRole('heading', { level: 1, name: 'Create a template' }).waitFor();
    // The editor starts with a valid example naming the environment's app.
    const editor = page.getByLabel('Template file');
    await page.getByText('Valid JSON.').waitFor();
    expect((JSON.parse(await editor.inputValue()) as { apps: string[] }).apps.sort()).toEqual(['android', 'ios']);
    await s.check('template-create');
    await editor.fill('{ "key": ');
    await page.getByText(/^Not valid JSON/).waitFor();
    await page.getByText('Fix the JSON below to edit its essential fields here.').waitFor();
    await editor.fill(JSON.stringify({ ...FILE, key: 'draft.key' }, null, 2));
    // The essential fields read the file and write into it.
    expect(await page.getByLabel('Title (en)').inputValue()).toBe('Order {{orderId}} shipped');
    expect(await page.getByRole('checkbox', { name: 'ios (iOS)' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'android (Android)' }).isChecked()).toBe(true);
    await page.getByLabel('Key', { exact: true }).fill('order.shipped');
    expect(JSON.parse(await editor.inputValue())).toEqual(FILE);
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { level: 1, name: 'Template order.shipped' }).waitFor();

    // Both locales rendered on a phone, again as the sample variables are typed.
    const preview = page.getByRole('region', { name: 'Preview', exact: true });
    await preview.getByLabel('orderId').fill('A-17');
    await preview.getByLabel('amount').fill('1234.5');
    const en = page.getByRole('region', { name: 'Preview in en' });
    const de = page.getByRole('region', { name: 'Preview in de' });
    await en.getByText('Order A-17 shipped', { exact: true }).first().waitFor();
    await en.getByText('Total 1,234.5', { exact: true }).first().waitFor();
    await de.getByText('Bestellung A-17 versandt', { exact: true }).first().waitFor();
    await de.getByText('Summe 1.234,5', { exact: true }).first().waitFor();
    // A phone frame per app: the iPhone's (APNs) and the Android phone's (FCM).
    const frames = await de.getByRole('figure').allTextContents();
    expect(frames).toHaveLength(2);
    expect(frames).toEqual(expect.arrayContaining([expect.stringMatching(/iOS \(APNS, \d+ bytes of 4096\)/), expect.stringMatching(/Android \(FCM, \d+ bytes of 4096\)/)]));
    expect(await en.locator('.phone-android').getByText('Total 1,234.5', { exact: true }).count()).toBe(1);
    await s.check('template-draft');

    await page.getByRole('button', { name: 'Publish version 1' }).click();
    await page.getByText('Version 1 is published').waitFor();
    await page.getByText('Active: a published version serves sends').waitFor();

    // What is typed is previewed before it is saved (the server renders the unsaved file)...
    const text = (await page.getByLabel('Template file').inputValue()).replace('Order {{orderId}} shipped', 'Order {{orderId}} on its way');
    await page.getByLabel('Template file').fill(text);
    await page.getByText('Unsaved changes').waitFor();
    await en.getByText('Order A-17 on its way', { exact: true }).first().waitFor();
    expect(await en.getByRole('figure').first().textContent()).toContain('unsaved');
    await page.getByLabel('Template file').fill(text.replace('{{orderId}} on its way', '{{orderNo}} on its way'));
    await en.getByText('{{orderNo}} is not a declared variable').first().waitFor();
    await page.getByLabel('Template file').fill(text);
    await en.getByText('Order A-17 on its way', { exact: true }).first().waitFor();
    // ...and an edit saved is a draft beside the published version.
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft version 2 saved').waitFor();
    await en.getByText('version 2 draft').first().waitFor();
    await en.getByText('Order A-17 on its way', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Publish version 2' }).waitFor();
    await s.check('template-edited');
  }, 60_000);

  it('test-sends the draft to a test group: the push reaches APNs, and the send page shows it delivered', async () => {
    const page = s.page;
    const form = page.getByRole('form', { name: 'Test send' });
    expect(await form.getByLabel('Version to send').inputValue()).toBe('draft');
    await form.getByLabel('Locale').fill('de-AT');
    await form.getByLabel('orderId').fill('B-2');
    await form.getByRole('button', { name: 'Send test' }).click();
    await page.getByText(/Test send admitted: “Bestellung B-2 versandt” in de/).waitFor();
    await page.getByRole('table', { name: 'Installations of the test send' }).getByText('A delivery was admitted (TARGETED)').waitFor();
    await until('the test push at the APNs fake', () => p.apns.requests.some((r) => (r.payload as { aps: { alert: { title: string } } }).aps.alert.title === 'Bestellung B-2 versandt'), 30_000);
    const apnsId = p.apns.requests.find((r) => (r.payload as { aps: { alert: { title: string } } }).aps.alert.title === 'Bestellung B-2 versandt')!.apnsId;

    await page.getByRole('link', { name: 'Follow its deliveries' }).click();
    await page.getByRole('heading', { level: 1, name: 'Test send' }).waitFor();
    const deliveries = page.getByRole('table', { name: 'Deliveries of the send' });
    await deliveries.getByRole('cell', { name: 'SENT', exact: true }).waitFor();
    // The app reports the push delivered (the SDK's receipt); the page shows it on refresh.
    await operations(server, device.credential, [['PUSH_RECEIPT_RECORDED', { deliveryId: apnsId, type: 'DELIVERED' }]]);
    await until('the receipt recorded', async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(250);
      return (await deliveries.getByRole('cell', { name: 'DELIVERED', exact: true }).count()) > 0;
    }, 30_000);
    expect(await page.getByRole('list', { name: 'Deliveries by state' }).textContent()).toContain('1 delivered');
    expect(await deliveries.getByRole('cell', { name: device.installationId }).count()).toBe(1);
    await s.check('send');
  }, 60_000);

  it('lists sends by installation and opens one by request id', async () => {
    const page = s.page;
    const sendUrl = page.url();
    const requestId = sendUrl.slice(sendUrl.lastIndexOf('/') + 1);
    await page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name: 'Sends' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sends' }).waitFor();
    await page.getByRole('form', { name: 'Filter sends' }).getByLabel('Installation id').fill(device.installationId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('table', { name: 'Sends' }).getByRole('link', { name: requestId }).waitFor();
    // The filter is in the address: a reload keeps it.
    expect(new URL(page.url()).searchParams.get('installation')).toBe(device.installationId);
    await page.reload();
    await page.getByRole('table', { name: 'Sends' }).getByRole('link', { name: requestId }).waitFor();
    expect(await page.getByRole('form', { name: 'Filter sends' }).getByLabel('Installation id').inputValue()).toBe(device.installationId);
    await page.getByRole('form', { name: 'Filter sends' }).getByLabel('Installation id').fill(randomUUID());
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No send matches.').waitFor();
    await s.check('sends');
    await page.getByRole('textbox', { name: 'Request id' }).fill('not-an-id');
    await page.getByRole('button', { name: 'Open send' }).click();
    await page.getByText('A request id is a UUID').waitFor();
    await page.getByRole('textbox', { name: 'Request id' }).fill(requestId);
    await page.getByRole('button', { name: 'Open send' }).click();
    await page.getByRole('heading', { level: 1, name: 'Test send' }).waitFor();
  });

  it('looks the installation up, with its timeline and its profile', async () => {
    const page = s.page;
    await s.open(`${env}/installations`);
    await page.getByRole('table', { name: 'Installations' }).getByRole('link', { name: device.installationId }).waitFor();
    await s.check('installations');
    await page.getByLabel('Installation id or external id').fill(device.installationId.toUpperCase());
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { level: 1, name: `Installation ${device.installationId}` }).waitFor();
    await page.getByText('a token is held (never shown)').waitFor();
    expect(await page.locator('main').textContent()).toContain('Yes');
    // One timeline, newest first: the push delivered (the receipt) and sent, its admission, the
    // operations received, the binding at registration, the registration; each with its time.
    const timeline = page.getByRole('list', { name: 'Timeline of the installation, newest first' });
    await timeline.waitFor();
    const entries = await timeline.getByRole('listitem').allTextContents();
    expect(entries.some((e) => e.includes('Push receipt recorded: operation accepted'))).toBe(true);
    const order = [/Push delivered: the app reported it received/, /Push sent to APNS for send/, /Push admitted for send .* through APNS/, /Push token set: operation accepted/, /Push permission set: operation accepted/, /started anonymous with profile/, /Installation registered \(iOS\)/];
    const at = order.map((re) => entries.findIndex((e) => re.test(e)));
    expect(at.every((k) => k >= 0), `${JSON.stringify(entries)}`).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const times = await timeline.locator('time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime') ?? ''));
    expect(times).toHaveLength(entries.length);
    expect(times.map((t) => Date.parse(t))).toEqual(times.map((t) => Date.parse(t)).sort((a, b) => b - a));
    // Its send's link opens the send.
    expect(await timeline.getByRole('link', { name: /^send / }).first().getAttribute('href')).toMatch(/\/sends\/[0-9a-f-]{36}$/);
    await s.check('installation');
    await timeline.getByRole('listitem').filter({ hasText: 'started anonymous with profile' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Profile / }).waitFor();
    await page.getByText('None: an anonymous profile').waitFor();
    await page.getByRole('table', { name: 'Installations bound to the profile' }).getByRole('link', { name: device.installationId }).waitFor();
    // The profile's timeline: its installation's events while it was the profile's, the profile's creation last.
    const ptl = page.getByRole('list', { name: 'Timeline of the profile, newest first' });
    await ptl.getByText(/Push delivered: the app reported it received/).waitFor();
    const pEntries = await ptl.getByRole('listitem').allTextContents();
    expect(pEntries.some((e) => e.includes(`Push token set: operation accepted`) && e.includes(device.installationId))).toBe(true);
    expect(pEntries.filter((e) => /Profile created \(anonymous\)|registered \(iOS\)/.test(e))).toHaveLength(2);
    await s.check('profile');

    // A user signs in on the device (the backend commits the binding): both timelines say so.
    const code = await fetch(`${server.url}/v1/sdk/installation/binding-code`, { method: 'POST', headers: { authorization: `Bearer ${device.credential}` } });
    const { code: bindingCode } = (await code.json()) as { code: string };
    const bound = await fetch(`${server.url}/v1/installation-binding-transitions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessKey}`, 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ bindingCode, target: { externalId: 'customer-7' } }),
    });
    expect(bound.status).toBe(201);
    await s.open(`${env}/installations`);
    await page.getByLabel('Installation id or external id').fill('customer-7');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByRole('heading', { level: 1, name: 'Profile of customer-7' }).waitFor();
    const btl = page.getByRole('list', { name: 'Timeline of the profile, newest first' });
    await btl.getByText(/was bound to profile .*: a user signed in \(generation 1\)/).waitFor();
    const bEntries = await btl.getByRole('listitem').evaluateAll((lis) => lis.map((li) => (li.textContent ?? '').slice((li.querySelector('time')?.textContent ?? '').length)));
    // Only what happened since it was the profile's: not the anonymous generation's pushes or operations.
    expect(bEntries).toEqual([expect.stringMatching(/^Installation .* was bound to profile/), 'Profile created for external id customer-7']);
    await btl.getByRole('link', { name: device.installationId }).click();
    await page.getByRole('heading', { level: 1, name: `Installation ${device.installationId}` }).waitFor();
    await timeline.getByText(/^The installation was bound to profile .*: a user signed in \(generation 1\)$/).waitFor();
    await s.open(`${env}/profiles/external/nobody`);
    await page.getByText('There is no profile with this id or external id').waitFor();
  });

  it('shows a version, and archives the template by typing its key', async () => {
    const page = s.page;
    await s.open(`${env}/templates/order.shipped/versions/1`);
    await page.getByText('PUBLISHED', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Preview in de' }).getByText('Bestellung sample orderId versandt', { exact: true }).first().waitFor();
    await s.check('template-version');
    await s.open(`${env}/templates/order.shipped`);
    await page.getByRole('button', { name: 'Archive' }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive template order.shipped' });
    await dialog.getByLabel('Type order.shipped to confirm').fill('order.shippe');
    expect(await dialog.getByRole('button', { name: 'Archive template' }).isDisabled()).toBe(true);
    await s.check('template-archive');
    await dialog.getByLabel('Type order.shipped to confirm').fill('order.shipped');
    await dialog.getByRole('button', { name: 'Archive template' }).click();
    await page.getByText('Template order.shipped is archived.').waitFor();
    await page.getByText('Archived: no more sends').first().waitFor();
  });

  it('called only operations of the OpenAPI document, without a page error', () => {
    const calls = apiCalls(s.requests);
    expect(calls.some((c) => c.endsWith('/templates/order.shipped/preview'))).toBe(true);
    expect(undocumentedCalls(s.requests)).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
