import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/binary';
import { HAS_CHROMIUM } from '../helpers/browser';
import { apiCalls, createOperator, undocumentedCalls, signInToConsole, type ConsoleSession } from '../helpers/console';
import { createPushSandbox, registerDevices, type PushSandbox } from '../helpers/push-e2e';

/**
 * An environment's pages of the console (issue 25) on the built executable, as an operator uses
 * them: create an environment, an iOS app with its APNs key checked against the loopback APNs
 * fake, access keys (the secret shown once, a rotation with an overlap, a revocation), a test
 * group; the overview, privacy, audit and settings pages, and the deletion with its progress.
 * axe-core on every page.
 */
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;
const TOPIC = 'com.acme.shop';

describeBrowser('console: an environment and its pages', () => {
  let p: PushSandbox;
  let server: RunningServer;
  let s: ConsoleSession;
  beforeAll(async () => {
    p = await createPushSandbox({ prefix: 'engage-console-env-', topic: TOPIC });
    await createOperator(p.sandbox);
    server = await p.sandbox.serve({ env: p.env });
    s = await signInToConsole(server, undefined, '/engage/environments');
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await p?.close();
  });

  let environmentId = '';
  /** The status the backend API answers a request with this access key (401: refused; anything else: the key was accepted). */
  const withKey = async (key: string) =>
    (
      await fetch(`${server.url}/api/v1/environments/${environmentId}/transactional/no-such-template/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ recipient: { externalId: 'nobody' } }),
      })
    ).status;
  const fact = (term: string) => s.page.locator(`dl.facts dt:text-is("${term}") + dd`);
  const tab = (name: string) => s.page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name, exact: true });
  const h1 = (name: string) => s.page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

  it('creates an environment and shows its overview with its tabs', async () => {
    await s.page.getByRole('link', { name: 'Create an environment' }).click();
    await s.page.getByLabel('Name', { exact: true }).fill('shop');
    await s.page.getByLabel('Display name').fill('Shop');
    await s.page.getByRole('button', { name: 'Create environment' }).click();
    await h1('Shop');
    await s.page.getByText('No app yet').waitFor();
    environmentId = (await fact('Id').textContent()) ?? '';
    expect(environmentId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await tab('Overview').getAttribute('aria-current')).toBe('page');
    await s.check('environment-overview-empty');
  });

  it('creates an iOS app, uploads its APNs key and checks it with the provider', async () => {
    await tab('Apps').click();
    await h1('Apps');
    await s.check('apps-empty');
    await s.page.getByLabel('App name').fill('shop-ios');
    await s.page.getByLabel('Bundle id').fill(TOPIC);
    await s.page.getByRole('button', { name: 'Create app' }).click();
    await h1('App shop-ios');
    await s.page.getByText('No APNs credentials yet').waitFor();
    await s.check('app');

    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    p.apns.addKey('KEYID12345', 'TEAMID1234', pem);
    await s.page.getByLabel('Key file (.p8)').setInputFiles({ name: 'AuthKey_KEYID12345.p8', mimeType: 'application/octet-stream', buffer: Buffer.from(pem) });
    await s.page.getByLabel('Key id').fill('KEYID12345');
    await s.page.getByLabel('Team id').fill('TEAMID1234');
    expect(await s.page.getByLabel('Topic').inputValue()).toBe(TOPIC);
    await s.page.getByRole('button', { name: 'Upload APNs key' }).click();
    await s.page.getByText('The APNs key is stored, sealed').waitFor();
    await s.page.getByText('SHA-256 of the public key').waitFor();
    await s.page.getByRole('button', { name: 'Check credentials' }).click();
    await s.page.getByText('APNs accepted these credentials').waitFor();
    expect(p.apns.requests.some((r) => r.status === 400 && r.reason === 'BadDeviceToken')).toBe(true);
    await s.check('app-credentials');
    // Two devices of the app, push authorized with a token: the overview counts them below.
    const appKey = (await fact('Public app key').locator('code').textContent()) ?? '';
    expect(appKey).toMatch(/^svc_app_/);
    await registerDevices(server, appKey, 2);
  });

  it('creates an Android app and uploads its FCM service account, read in the browser', async () => {
    await tab('Apps').click();
    await h1('Apps');
    await s.page.getByLabel('Platform').selectOption('ANDROID');
    await s.page.getByLabel('App name').fill('shop-android');
    await s.page.getByRole('button', { name: 'Create app' }).click();
    await h1('App shop-android');
    const file = s.page.getByLabel('Service-account key file (JSON)');
    await file.setInputFiles({ name: 'key.json', mimeType: 'application/json', buffer: Buffer.from('not json') });
    await s.page.getByRole('button', { name: 'Upload service account' }).click();
    await s.page.getByText('The file is not JSON').waitFor();
    const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const account = { type: 'service_account', project_id: 'shop-demo', private_key_id: 'k1', private_key: privateKey, client_email: 'push@shop-demo.iam.gserviceaccount.com', token_uri: 'https://oauth2.googleapis.com/token' };
    await file.setInputFiles({ name: 'key.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(account)) });
    await s.page.getByRole('button', { name: 'Upload service account' }).click();
    await s.page.getByText('The service-account key is stored, sealed').waitFor();
    expect(await fact('Project').textContent()).toBe('shop-demo');
    expect(await fact('Service account').textContent()).toBe(account.client_email);
    expect(await fact('Fingerprint').textContent()).toMatch(/^[0-9a-f]{64}/);
    await s.check('app-fcm');
  });

  let firstSecret = '';
  let oldSecret = '';
  it('creates access keys for the app: each secret shown once', async () => {
    await tab('Access keys').click();
    await h1('Access keys');
    for (const name of ['backend', 'old-backend']) {
      await s.page.getByLabel('Key name').fill(name);
      await s.page.getByLabel('shop-ios (iOS)').check();
      await s.page.getByLabel('shop-android (Android)').check();
      await s.page.getByRole('button', { name: 'Create access key' }).click();
      const secret = s.page.getByRole('textbox', { name: `Access key ${name}` });
      await secret.waitFor();
      expect(await secret.inputValue()).toMatch(/^svc_key_/);
      if (name === 'backend') firstSecret = await secret.inputValue();
      else oldSecret = await secret.inputValue();
    }
    expect(await withKey(firstSecret)).not.toBe(401);
    expect(await withKey('svc_key_not-a-key')).toBe(401);
    await s.page.getByText('It is shown only once').waitFor();
    await s.page.getByRole('button', { name: 'Copy' }).click();
    expect(String(await s.page.evaluate('navigator.clipboard.readText()'))).toMatch(/^svc_key_/);
    await s.page.getByRole('cell', { name: 'old-backend' }).waitFor();
    await s.check('access-keys');
    // The list never shows a secret again.
    await s.page.reload();
    await s.page.getByRole('cell', { name: 'backend', exact: true }).waitFor();
    expect(await s.page.getByRole('textbox', { name: /^Access key/ }).count()).toBe(0);
  });

  it('rotates a key with an overlap: the new secret is shown once and the previous one keeps working', async () => {
    await s.page.getByRole('link', { name: 'backend', exact: true }).click();
    await h1('Access key backend');
    await s.page.getByLabel('Overlap in seconds').fill('600');
    await s.page.getByRole('button', { name: 'Rotate access key' }).click();
    const secret = s.page.getByRole('textbox', { name: 'New secret of backend' });
    await secret.waitFor();
    const rotated = await secret.inputValue();
    expect(rotated).toMatch(/^svc_key_/);
    expect(rotated).not.toBe(firstSecret);
    await s.page.getByText('The previous secret keeps working until').waitFor();
    expect(await withKey(rotated)).not.toBe(401);
    expect(await withKey(firstSecret)).not.toBe(401);
    await s.check('access-key-rotated');
  });

  it('revokes another key after its name is typed', async () => {
    await tab('Access keys').click();
    await s.page.getByRole('link', { name: 'old-backend' }).click();
    await h1('Access key old-backend');
    await s.page.getByRole('button', { name: 'Revoke access key' }).click();
    const dialog = s.page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Revoke access key' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type old-backend to confirm').fill('old-backend');
    await s.check('access-key-revoke-dialog');
    await confirm.click();
    await s.page.getByText('The key is revoked').waitFor();
    await s.page.getByText(/^Revoked /).waitFor();
    expect(await withKey(oldSecret)).toBe(401);
  });

  it('creates a test group and edits its members', async () => {
    await tab('Test groups').click();
    await h1('Test groups');
    await s.page.getByLabel('Group name').fill('qa');
    await s.page.getByLabel('External ids').fill('tester-1');
    await s.page.getByRole('button', { name: 'Create test group' }).click();
    await h1('Test group qa');
    await s.page.getByLabel('External ids').fill('tester-1\ntester-2');
    await s.page.getByRole('button', { name: 'Save test group' }).click();
    await s.page.getByText('Saved.').waitFor();
    await s.page.getByRole('definition').filter({ hasText: /^2$/ }).waitFor();
    await s.check('test-group');
  });

  it('shows the overview: installations by app and platform, push-ready share, activity', async () => {
    await tab('Overview').click();
    await h1('Shop');
    const byApp = s.page.getByRole('figure', { name: 'Installations by app' });
    await byApp.getByText('shop-ios (iOS)').waitFor();
    await byApp.getByText('2, 2 push-ready (100%)').waitFor();
    expect(await fact('Push-ready').count()).toBe(0);
    await s.page.locator('dl.stats dt:text-is("Push-ready") + dd').filter({ hasText: '100%' }).waitFor();
    await s.page.getByRole('figure', { name: 'Installations by platform' }).waitFor();
    await s.page.getByRole('figure', { name: 'Deliveries by state, last hour' }).waitFor();
    await s.page.getByText('Operations per minute').first().waitFor();
    // Per minute: the registrations' operations make a column in their minute (a minute of the last few), told in words too.
    const opsChart = s.page.getByRole('figure', { name: 'Operations per minute, last 60 minutes' });
    const columns = opsChart.locator('svg.minutes g.minute');
    await columns.first().waitFor({ state: 'attached' });
    const minute = Date.parse((await columns.last().getAttribute('data-minute')) ?? '');
    expect(Date.now() - minute).toBeGreaterThanOrEqual(0);
    expect(Date.now() - minute).toBeLessThan(10 * 60_000);
    expect(Number(await columns.last().locator('rect.series-accepted').getAttribute('height'))).toBeGreaterThan(0);
    expect(await columns.last().locator('rect.series-rejected').count()).toBe(0);
    expect(await opsChart.locator('.chart-summary').textContent()).toMatch(/^[1-9]\d* operations from installations in the last 60 minutes \(0 rejected\): the busiest minute /);
    await opsChart.getByText(/minutes? with activity$/).click();
    expect(await opsChart.getByRole('table').getByRole('row').count()).toBe(1 + (await columns.count()));
    const deliveriesChart = s.page.getByRole('figure', { name: 'Deliveries per minute, last 60 minutes' });
    expect(await deliveriesChart.locator('.chart-summary').textContent()).toBe('0 deliveries created in the last 60 minutes: nothing in any minute.');
    expect(await deliveriesChart.locator('svg.minutes g.minute').count()).toBe(0);
    await s.check('environment-overview');
  });

  it('shows privacy erasure, the audit events with filters and the settings', async () => {
    await tab('Privacy').click();
    await h1('Privacy erasure');
    await s.page.getByRole('textbox', { name: 'External id', exact: true }).fill('nobody');
    await s.page.getByRole('button', { name: 'Erase by external id…' }).click();
    const dialog = s.page.getByRole('dialog');
    await dialog.getByText('every installation bound to it').waitFor();
    await dialog.getByLabel('Type nobody to confirm').fill('nobody');
    await dialog.getByRole('button', { name: 'Erase' }).click();
    await dialog.getByText('unknown_profile').waitFor();
    await s.check('privacy');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await tab('Audit').click();
    await h1('Audit events');
    await s.page.getByRole('cell', { name: 'access_key.revoked' }).waitFor();
    await s.page.getByLabel('Action').fill('app.created');
    await s.page.getByRole('button', { name: 'Filter', exact: true }).click();
    await s.page.getByRole('cell', { name: 'access_key.revoked' }).waitFor({ state: 'detached' });
    expect(await s.page.getByRole('cell', { name: 'app.created' }).count()).toBe(2);
    await s.check('environment-audit');

    await tab('Settings').click();
    await h1('Settings');
    await s.page.getByLabel('Display name').fill('Shop (EU)');
    await s.page.getByRole('button', { name: 'Save settings' }).click();
    await s.page.getByText('Saved.').waitFor();
    await s.page.getByRole('link', { name: 'Shop (EU)' }).waitFor();
    await s.page.getByRole('button', { name: 'Disable environment' }).click();
    await s.page.getByText('This environment is disabled').first().waitFor();
    await s.page.getByRole('button', { name: 'Enable environment' }).click();
    await s.page.getByText('The environment is enabled again.').waitFor();
    await s.check('environment-settings');
  });

  it('deletes the environment after its name is typed, with progress until it is gone', async () => {
    await s.page.getByRole('button', { name: 'Delete environment' }).click();
    const dialog = s.page.getByRole('dialog');
    await dialog.getByLabel('Type shop to confirm').fill('shop');
    await dialog.getByRole('button', { name: 'Delete environment' }).click();
    await s.page.getByRole('heading', { name: 'Deleting shop' }).waitFor();
    await s.page.getByText('The environment shop is deleted').waitFor({ timeout: 60_000 });
    await s.check('environment-deleted');
    await s.page.getByRole('link', { name: 'Back to the environments' }).click();
    await h1('Environments');
    expect(await s.page.getByRole('link', { name: 'shop', exact: true }).count()).toBe(0);
  });

  it('called only operations of the OpenAPI document, and nothing failed in the page', () => {
    expect(apiCalls(s.requests).length).toBeGreaterThan(0);
    expect(undocumentedCalls(s.requests)).toEqual([]);
    expect(s.problems).toEqual([]);
  });
});
