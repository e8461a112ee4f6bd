/**
 * `engage apply` for the engagement half (issue 24) on dist/engage: an environment with its
 * identity tenant, an IOS app with APNs credentials from a .p8 file and an ANDROID app with an
 * FCM service account from a variable, an access key from a variable and one generated, a
 * template (published) and a test group. A dry run writes nothing, the first run creates
 * everything and marks it configuration-managed, the second says nothing changed; the CLI then
 * refuses to edit what apply declared (409 configuration_managed), errors name their place in
 * the file, and no provider key is ever printed. ENGAGE_TEST_ENGINE=postgres runs it on PostgreSQL.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createSandbox, type Sandbox } from '../helpers/binary';
import { HAS_CHROMIUM, launchChromium } from '../helpers/browser';

const apnsKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const fcmKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const serviceAccount = JSON.stringify({ type: 'service_account', project_id: 'shop-app', client_email: 'push@shop-app.iam.gserviceaccount.com', private_key: fcmKey, private_key_id: 'k1' });
const BACKEND_KEY = `svc_key_${randomBytes(32).toString('base64url')}`;
const env = { SHOP_FCM: serviceAccount, SHOP_BACKEND_KEY: BACKEND_KEY };

const template = {
  apps: ['shop-ios', 'shop-android'],
  defaultLocale: 'en',
  variables: { orderId: { type: 'string' } },
  localizations: { en: { title: 'Shipped', body: 'Order {{orderId}} is on its way' }, de: { title: 'Versandt', body: 'Bestellung {{orderId}} ist unterwegs' } },
};

const config = {
  version: 1,
  tenants: [{ slug: 'shop' }],
  environments: [
    {
      name: 'prod',
      displayName: 'Production',
      identityTenant: 'shop',
      apps: [
        { name: 'shop-ios', platform: 'IOS', bundleId: 'com.shop.app', apns: { keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.shop.app', privateKeyFile: 'apns.p8' } },
        { name: 'shop-android', platform: 'ANDROID', bundleId: 'com.shop.app', fcm: { serviceAccountEnv: 'SHOP_FCM' } },
      ],
      accessKeys: [
        { name: 'backend', apps: ['shop-ios', 'shop-android'], keyEnv: 'SHOP_BACKEND_KEY' },
        { name: 'ops', apps: ['shop-ios'] },
      ],
      templates: [{ key: 'order.shipped', file: 'templates/order-shipped.json' }],
      testGroups: [{ name: 'team', members: [{ externalId: 'alice@example.com' }] }],
    },
  ],
};

interface Step { action: string; kind: string; environment?: string; tenant?: string; key: string; changes: string[] }
interface ApplyJson { dryRun: boolean; changed: boolean; steps: Step[]; secrets: { kind: string; name?: string; id?: string; key?: string | null; keyEnv?: string }[] }

const EXPECTED = [
  'create tenant shop', 'create environment prod', 'create app shop-ios', 'create app shop-android', 'create access_key backend', 'create access_key ops',
  'create template order.shipped', 'create test_group team',
];

describe('dist/engage apply: the engagement half', () => {
  let sb: Sandbox;
  let file: string;
  let opsKey: string;
  const secretsAbsent = (text: string) => {
    for (const s of [apnsKey, fcmKey, BACKEND_KEY, 'BEGIN PRIVATE KEY', apnsKey.split('\n')[1], fcmKey.split('\n')[1]]) expect(text).not.toContain(s);
  };

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-apply-engage-' });
    file = path.join(sb.dir, 'engage.json');
    writeFileSync(file, JSON.stringify(config, null, 2));
    writeFileSync(path.join(sb.dir, 'apns.p8'), apnsKey);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(sb.dir, 'templates'));
    writeFileSync(path.join(sb.dir, 'templates', 'order-shipped.json'), JSON.stringify(template));
  });
  afterAll(() => sb?.cleanup());

  it('prints the plan on a dry run and writes nothing', async () => {
    const plan = await sb.cliJson<ApplyJson>(['apply', '-f', file, '--dry-run'], { env });
    expect(plan).toMatchObject({ dryRun: true, changed: true, secrets: [] });
    expect(plan.steps.map((s) => `${s.action} ${s.kind} ${s.key}`)).toEqual(EXPECTED);
    const human = await sb.run(['apply', '-f', file, '--dry-run'], { env });
    expect(human.stdout).toContain('dry run: nothing written');
    expect(human.stdout).toContain('+ create app prod/shop-ios');
    expect(human.stdout).toContain('8 to create, 0 to update, 0 unchanged.');
    secretsAbsent(human.stdout + human.stderr);
    expect(await sb.cliJson<unknown[]>(['environments', 'list'])).toEqual([]);
    expect((await sb.cliJson<{ slug: string }[]>(['tenants', 'list'])).map((t) => t.slug)).toEqual(['control']);
  });

  it('creates everything once, marked configuration-managed, printing the generated key once and no provider key', async () => {
    const first = await sb.run(['apply', '-f', file], { env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/8 to create, 0 to update, 0 unchanged\./);
    const m = /access key prod\/ops: id [0-9a-f-]{36} key (svc_key_\S+)/.exec(first.stdout);
    expect(m).not.toBeNull();
    opsKey = m![1];
    expect(first.stdout).toMatch(/access key prod\/backend: id [0-9a-f-]{36} key from \$SHOP_BACKEND_KEY/);
    secretsAbsent(first.stdout);

    const shop = (await sb.cliJson<{ id: string; slug: string }[]>(['tenants', 'list'])).find((t) => t.slug === 'shop')!;
    const prod = await sb.cliJson<{ name: string; displayName: string; identityTenantId: string; configurationManaged: boolean }>(['environments', 'show', 'prod']);
    expect(prod).toMatchObject({ name: 'prod', displayName: 'Production', identityTenantId: shop.id, configurationManaged: true });
    const apps = await sb.cliJson<{ name: string; platform: string; bundleId: string; configurationManaged: boolean }[]>(['apps', 'list', '--environment', 'prod']);
    expect(apps.map((a) => [a.name, a.platform, a.bundleId, a.configurationManaged])).toEqual([
      ['shop-ios', 'IOS', 'com.shop.app', true],
      ['shop-android', 'ANDROID', 'com.shop.app', true],
    ]);
    const keys = await sb.cliJson<{ name: string; appIds: string[]; configurationManaged: boolean }[]>(['access-keys', 'list', '--environment', 'prod']);
    expect(keys.map((k) => [k.name, k.appIds.length, k.configurationManaged])).toEqual([['backend', 2, true], ['ops', 1, true]]);
    const shown = await sb.cliJson<{ key: string; status: string; configurationManaged: boolean; published: { localizations: object } }>(['templates', 'show', 'order.shipped', '--environment', 'prod']);
    expect(shown).toMatchObject({ key: 'order.shipped', status: 'ACTIVE', configurationManaged: true });
    expect(Object.keys(shown.published.localizations)).toEqual(['en', 'de']);
    const group = await sb.cliJson<{ name: string; configurationManaged: boolean; members: object[] }>(['test-groups', 'show', 'team', '--environment', 'prod']);
    expect(group).toMatchObject({ name: 'team', configurationManaged: true, members: [{ externalId: 'alice@example.com' }] });

    // The audit trail names the environment and holds no key.
    const audit = await sb.run(['audit', 'list', '--environment', 'prod', '--size', '200', '--json']);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('environment.configuration_managed');
    expect(audit.stdout).toContain('push_credentials.set');
    secretsAbsent(audit.stdout);
    expect(audit.stdout).not.toContain(opsKey);
  });

  it('says nothing changed on a second run', async () => {
    const second = await sb.run(['apply', '-f', file], { env });
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe(`No changes: the environment already matches ${file} (8 objects).\n`);
    const json = await sb.cliJson<ApplyJson>(['apply', '-f', file], { env });
    expect(json).toMatchObject({ dryRun: false, changed: false, secrets: [] });
  });

  it('the keys work at the edge: the variable’s and the generated one', async () => {
    const server = await sb.serve();
    const prod = await sb.cliJson<{ id: string }>(['environments', 'show', 'prod']);
    const send = `${server.url}/api/v1/environments/${prod.id}/transactional/order.shipped/send`;
    for (const key of [BACKEND_KEY, opsKey]) {
      const res = await fetch(send, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });
      // Authenticated: the empty body is refused (400), the key is not (401).
      expect(res.status, key === BACKEND_KEY ? 'backend' : 'ops').toBe(400);
    }
    const wrong = await fetch(send, { method: 'POST', headers: { authorization: `Bearer svc_key_${'x'.repeat(43)}`, 'content-type': 'application/json' }, body: '{}' });
    expect(wrong.status).toBe(401);
    await server.stop();
  });

  it('refuses edits of what apply declared through the CLI (configuration_managed); apply brings a changed file back', async () => {
    const refusals: [string, string[]][] = [
      ['environment', ['environments', 'update', 'prod', '--display-name', 'Other']],
      ['app', ['apps', 'disable', 'shop-ios', '--environment', 'prod']],
      ['template', ['templates', 'archive', 'order.shipped', '--environment', 'prod']],
      ['test group', ['test-groups', 'update', 'team', '--environment', 'prod', '--name', 'qa']],
    ];
    for (const [what, args] of refusals) {
      const r = await sb.run([...args, '--json']);
      expect(r.code, what).toBe(1);
      expect(JSON.parse(r.stderr || r.stdout), what).toMatchObject({ error: 'configuration_managed' });
    }
    const key = (await sb.cliJson<{ id: string; name: string }[]>(['access-keys', 'list', '--environment', 'prod'])).find((k) => k.name === 'ops')!;
    const revoke = await sb.run(['access-keys', 'revoke', key.id, '--json']);
    expect(revoke.code).toBe(1);
    expect(JSON.parse(revoke.stderr || revoke.stdout)).toMatchObject({ error: 'configuration_managed' });

    // The file changes: a new display name, the template's text, the group's members. Apply updates just those.
    const changed = structuredClone(config);
    changed.environments[0].displayName = 'Production (EU)';
    changed.environments[0].testGroups[0].members.push({ externalId: 'bob@example.com' });
    const updated = path.join(sb.dir, 'changed.json');
    writeFileSync(updated, JSON.stringify(changed));
    writeFileSync(path.join(sb.dir, 'templates', 'order-shipped.json'), JSON.stringify({ ...template, localizations: { ...template.localizations, en: { title: 'Shipped!', body: 'Order {{orderId}} is on its way' } } }));
    const plan = await sb.cliJson<ApplyJson>(['apply', '-f', updated, '--dry-run'], { env });
    expect(plan.steps.filter((s) => s.action !== 'unchanged').map((s) => `${s.action} ${s.kind} ${s.key} ${s.changes.join(',')}`)).toEqual([
      'update environment prod displayName', 'update template order.shipped definition', 'update test_group team members',
    ]);
    const applied = await sb.cliJson<ApplyJson>(['apply', '-f', updated], { env });
    expect(applied.changed).toBe(true);
    expect((await sb.cliJson<{ displayName: string }>(['environments', 'show', 'prod'])).displayName).toBe('Production (EU)');
    const shown = await sb.cliJson<{ published: { localizations: { en: { title: string } } }; publishedVersion: number }>(['templates', 'show', 'order.shipped', '--environment', 'prod']);
    expect(shown.published.localizations.en.title).toBe('Shipped!');
    expect(shown.publishedVersion).toBe(2);
    expect((await sb.cliJson<ApplyJson>(['apply', '-f', updated], { env })).changed).toBe(false);
  });

  it.skipIf(!HAS_CHROMIUM)('refuses edits of what apply declared through the engagement administration API: 409 configuration_managed', async () => {
    const password = 'correct horse battery staple';
    await sb.cliJson(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${password}\n` });
    const server = await sb.serve();
    const browser = await launchChromium();
    const configDir = path.join(sb.dir, 'config');
    try {
      // `engage login --api engage` through the browser (test/e2e/operator-login.test.ts), then its token.
      const child = spawn(sb.bin, ['login', '--url', server.url, '--api', 'engage', '--timeout', '60', '--no-browser'], { cwd: sb.dir, env: { ...sb.env, XDG_CONFIG_HOME: configDir }, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      const authorizeUrl = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stderr }).on('line', (line) => {
          const m = /^\s+(http\S+\/oauth2\/authorize\?\S+)$/.exec(line);
          if (m) resolve(m[1]);
        });
        void exited.then((code) => reject(new Error(`engage login exited ${code}`)));
      });
      const page = await (await browser.newContext()).newPage();
      await page.goto(authorizeUrl);
      await page.getByLabel('Email').fill('ops@example.com');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(await exited).toBe(0);
      const token = (await sb.run(['token', '--api', 'engage'], { noDataDir: true, env: { XDG_CONFIG_HOME: configDir } })).stdout.trim();

      const prod = await sb.cliJson<{ id: string }>(['environments', 'show', 'prod']);
      const group = await sb.cliJson<{ id: string }>(['test-groups', 'show', 'team', '--environment', 'prod']);
      const apps = await sb.cliJson<{ id: string; name: string }[]>(['apps', 'list', '--environment', 'prod']);
      const keys = await sb.cliJson<{ id: string; name: string }[]>(['access-keys', 'list', '--environment', 'prod']);
      const ios = apps.find((a) => a.name === 'shop-ios')!.id;
      const ops = keys.find((k) => k.name === 'ops')!.id;
      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      // Every change the API offers on what apply declared, where the route exists.
      const candidates: [string, string, string, unknown?][] = [
        ['PUT', '/environments/{environmentId}', `/environments/${prod.id}`, { displayName: 'Other' }],
        ['DELETE', '/environments/{environmentId}', `/environments/${prod.id}`],
        ['PUT', '/environments/{environmentId}/templates/{templateKey}', `/environments/${prod.id}/templates/order.shipped`, template],
        ['POST', '/environments/{environmentId}/templates/{templateKey}/archive', `/environments/${prod.id}/templates/order.shipped/archive`],
        ['PATCH', '/environments/{environmentId}/test-groups/{testGroupId}', `/environments/${prod.id}/test-groups/${group.id}`, { name: 'qa' }],
        ['DELETE', '/environments/{environmentId}/test-groups/{testGroupId}', `/environments/${prod.id}/test-groups/${group.id}`],
        ['PATCH', '/environments/{environmentId}/apps/{appId}', `/environments/${prod.id}/apps/${ios}`, { bundleId: 'com.other' }],
        ['DELETE', '/environments/{environmentId}/apps/{appId}', `/environments/${prod.id}/apps/${ios}`],
        ['PUT', '/environments/{environmentId}/apps/{appId}/credentials/apns', `/environments/${prod.id}/apps/${ios}/credentials/apns`,
          { keyId: 'OTHER12345', teamId: 'TEAM123456', topic: 'com.shop.app', privateKey: apnsKey }],
        ['DELETE', '/environments/{environmentId}/apps/{appId}/credentials/{provider}', `/environments/${prod.id}/apps/${ios}/credentials/apns`],
        ['DELETE', '/environments/{environmentId}/access-keys/{keyId}', `/environments/${prod.id}/access-keys/${ops}`],
        ['POST', '/environments/{environmentId}/access-keys/{keyId}/rotation', `/environments/${prod.id}/access-keys/${ops}/rotation`, {}],
      ];
      const tried: string[] = [];
      for (const [method, route, at, body] of candidates) {
        if (!doc.paths[`/engage/admin${route}`]?.[method.toLowerCase()]) continue;
        tried.push(`${method} ${route}`);
        const res = await fetch(`${server.url}/t/control/engage/admin${at}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const answer = (await res.json()) as { error: string };
        expect([res.status, answer.error], `${method} ${route}`).toEqual([409, 'configuration_managed']);
      }
      // Every one of them is served (environments, apps, credentials, access keys, templates, test groups).
      expect(tried).toHaveLength(candidates.length);
      // Still as apply left them: the second run changes nothing.
      expect((await sb.cliJson<ApplyJson>(['apply', '-f', path.join(sb.dir, 'changed.json')], { env })).changed).toBe(false);
      expect((await sb.cliJson<{ displayName: string; status: string }>(['environments', 'show', 'prod']))).toMatchObject({ displayName: 'Production (EU)', status: 'ACTIVE' });
    } finally {
      await browser.close();
      await server.stop();
    }
  }, 120_000);

  it('names the place of an error in the file, and writes nothing for a missing variable', async () => {
    const bad = path.join(sb.dir, 'bad.json');
    const badPlatform = structuredClone(config) as { environments: { apps: { platform: string }[] }[] };
    badPlatform.environments[0].apps[1].platform = 'WINDOWS';
    writeFileSync(bad, JSON.stringify(badPlatform));
    const r = await sb.run(['apply', '-f', bad], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^engage: [^\n]*bad\.json: environments\[0\]\.apps\[1\]\.platform: [^\n]+\n$/);

    // An existing app's platform cannot change: found when planning, before anything is written.
    const swapped = structuredClone(config) as { environments: { displayName: string; apps: { platform: string; apns?: unknown; fcm?: unknown }[] }[] };
    swapped.environments[0].displayName = 'Never written';
    swapped.environments[0].apps[0] = { ...swapped.environments[0].apps[0], platform: 'ANDROID', apns: undefined };
    writeFileSync(bad, JSON.stringify(swapped));
    const p = await sb.run(['apply', '-f', bad], { env });
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/^engage: [^\n]*bad\.json: environments\[0\]\.apps\[0\]\.platform: app shop-ios is an IOS app[^\n]*\n$/);
    expect((await sb.cliJson<{ displayName: string }>(['environments', 'show', 'prod'])).displayName).toBe('Production (EU)');

    const missing = await sb.run(['apply', '-f', file], { env: { SHOP_FCM: serviceAccount } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^engage: [^\n]*engage\.json: environments\[0\]\.accessKeys\[0\]\.keyEnv: environment variable SHOP_BACKEND_KEY is not set\n$/);
    const notAKey = await sb.run(['apply', '-f', file], { env: { ...env, SHOP_BACKEND_KEY: 'not-a-key' } });
    expect(notAKey.code).toBe(1);
    expect(notAKey.stderr).toMatch(/environments\[0\]\.accessKeys\[0\]\.keyEnv: environment variable SHOP_BACKEND_KEY must hold an access key/);
    expect(notAKey.stderr).not.toContain('not-a-key');

    const schema = JSON.parse(await sb.cli(['apply', '--print-schema'])) as { properties: Record<string, { items?: { properties: Record<string, unknown> } }> };
    expect(Object.keys(schema.properties.environments.items!.properties).sort()).toEqual([
      'accessKeys',
      'apps',
      'automations',
      'displayName',
      'flags',
      'identityTenant',
      'inAppMessages',
      'inAppMinIntervalSeconds',
      'lists',
      'name',
      'syncRefreshAfterSeconds',
      'templates',
      'testGroups',
    ]);
  });
});
