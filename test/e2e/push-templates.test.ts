import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020';
import { startFcmFake, type FcmFake } from '../fakes/fcm-fake';
import { createTestCa } from '../fakes/test-ca';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { docsExample } from '../helpers/docs-examples';

/**
 * Issue 13 on the built executable: a template's whole life through the CLI (create, list,
 * update to a draft while the published version keeps serving, publish, archive) and an Android
 * app's FCM credentials set with `apps set-fcm`, delivered to a loopback FCM (HTTP/2, TLS from a
 * test CA, the service account's JWT-bearer token exchange checked by the fake).
 */
let sandbox: Sandbox;
let fcm: FcmFake;
let server: RunningServer;
let env: Record<string, string>;

const until = async (what: string, cond: () => boolean) => {
  const deadline = Date.now() + 30_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

beforeAll(async () => {
  const ca = createTestCa();
  fcm = await startFcmFake({ ca, projectId: 'test-project' });
  sandbox = await createSandbox({ prefix: 'engage-templates-' });
  env = { ENGAGE_FCM_URL: fcm.url, ENGAGE_PUSH_CA_FILE: ca.caFile };
});
afterAll(async () => {
  await server?.stop();
  await sandbox?.cleanup();
  await fcm?.close();
});

describe.skipIf(!existsSync(path.resolve(__dirname, '../../dist/engage')))('templates and FCM through the CLI (dist/engage)', () => {
  it('templates create --print-schema prints the schema the docs example conforms to; --help points to both', async () => {
    const schema = JSON.parse(await sandbox.cli(['templates', 'create', '--print-schema'])) as Record<string, unknown>;
    // Our free-form keyword (x-freeForm) is unknown to a plain validator: strict off ignores it, as an editor would.
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    const example = docsExample('templates.md', 'order-shipped.json');
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...example, extra: true })).toBe(false);
    expect(validate({ ...example, localizations: {} })).toBe(false);
    for (const verb of ['create', 'update']) {
      const help = await sandbox.cli(['templates', verb, '--help']);
      expect(help, verb).toContain('docs/templates.md');
      expect(help, verb).toContain('engage templates create --print-schema');
    }
  });

  it('a template is drafted, published, edited, republished and archived; sends follow the published version', async () => {
    const cli = <T>(args: string[]) => sandbox.cliJson<T>(args, { env });
    const environment = await cli<{ id: string }>(['environments', 'create', '--name', 'shop']);
    const app = await cli<{ id: string; appKey: string }>(['apps', 'create', '--environment', environment.id, '--platform', 'ANDROID', '--name', 'droid']);
    const key = await cli<{ key: string }>(['access-keys', 'create', '--environment', environment.id, '--app', app.id]);
    const saFile = path.join(sandbox.dir, 'service-account.json');
    writeFileSync(saFile, JSON.stringify(fcm.serviceAccount()));
    const set = await cli<Record<string, unknown>>(['apps', 'set-fcm', app.id, '--service-account', saFile]);
    // The private key is sealed and never printed back.
    expect(JSON.stringify(set)).not.toContain('PRIVATE KEY');

    const file = (title: string) => {
      const f = path.join(sandbox.dir, `${title}.json`);
      writeFileSync(f, JSON.stringify({ key: 'order.shipped', apps: ['droid'], defaultLocale: 'en', variables: { n: { type: 'number' } }, localizations: { en: { title: `${title} {{n}}`, body: 'On its way' } } }));
      return f;
    };
    const created = await cli<{ key: string; status: string; latestVersion: number; publishedVersion: number | null }>(['templates', 'create', '--environment', environment.id, '--file', file('Shipped')]);
    expect(created).toMatchObject({ key: 'order.shipped', status: 'DRAFT', latestVersion: 1, publishedVersion: null });
    // Issue 23 point 1: DRAFT until a version is published, in the list too (it said ACTIVE while sends answered template_not_active).
    const listStatus = async () => (await cli<{ key: string; status: string }[]>(['templates', 'list', '--environment', environment.id])).map((t) => [t.key, t.status]);
    expect(await listStatus()).toEqual([['order.shipped', 'DRAFT']]);
    const table = await sandbox.cli(['templates', 'list', '--environment', environment.id], { env });
    expect(table).toMatch(/order\.shipped\s+DRAFT\s/);
    await cli(['templates', 'publish', 'order.shipped', '--environment', environment.id]);
    expect(await listStatus()).toEqual([['order.shipped', 'ACTIVE']]);

    server = await sandbox.serve({ env });
    const reg = await fetch(`${server.url}/v1/sdk/installations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-App-Key': app.appKey },
      body: JSON.stringify({ platform: 'ANDROID', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
    });
    const device = (await reg.json()) as { installationId: string; credential: string };
    const op = (type: string, payload: unknown) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload });
    const batch = await fetch(`${server.url}/v1/sdk/operations:batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${device.credential}` },
      body: JSON.stringify({ batchId: randomUUID(), operations: [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_TOKEN_SET', { token: 'fcm-device-token-1' })] }),
    });
    expect(batch.status).toBe(202);
    const send = (n: number) =>
      fetch(`${server.url}/api/v1/environments/${environment.id}/transactional/order.shipped/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
        body: JSON.stringify({ recipient: { type: 'INSTALLATION_ID', value: device.installationId }, variables: { n }, idempotencyKey: `shipped-${n}` }),
      });
    const titles = () => fcm.sends.filter((s) => s.status === 200).map((s) => (s.message.notification as { title: string }).title);

    expect((await send(1)).status).toBe(202);
    await until('the first delivery', () => titles().length === 1);

    // An edit is a draft: the published version keeps serving until it is published.
    const updated = await cli<{ latestVersion: number; publishedVersion: number }>(['templates', 'update', 'order.shipped', '--environment', environment.id, '--file', file('Dispatched')]);
    expect(updated).toMatchObject({ latestVersion: 2, publishedVersion: 1 });
    expect((await send(2)).status).toBe(202);
    await until('the second delivery', () => titles().length === 2);
    await cli(['templates', 'publish', 'order.shipped', '--environment', environment.id]);
    expect((await send(3)).status).toBe(202);
    await until('the third delivery', () => titles().length === 3);
    expect(titles()).toEqual(['Shipped 1', 'Shipped 2', 'Dispatched 3']);
    expect(fcm.sends.every((s) => s.token === 'fcm-device-token-1')).toBe(true);
    expect(fcm.tokenRequests()).toBeGreaterThanOrEqual(1);

    const shown = await cli<{ versions: { version: number; state: string }[]; sends: number; deliveries: Record<string, number> }>(['templates', 'show', 'order.shipped', '--environment', environment.id]);
    expect(shown.sends).toBe(3);
    expect(shown.deliveries).toEqual({ SENT: 3 });
    expect(shown.versions.map((v) => v.version)).toEqual([1, 2]);

    const archived = await cli<{ status: string }>(['templates', 'archive', 'order.shipped', '--environment', environment.id]);
    expect(archived.status).toBe('ARCHIVED');
    const refused = await send(4);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(await refused.json())).toContain('template_not_active');
    const listed = await cli<{ key: string; status: string }[]>(['templates', 'list', '--environment', environment.id]);
    expect(listed).toEqual([expect.objectContaining({ key: 'order.shipped', status: 'ARCHIVED' })]);
    // An archived template cannot be edited from the CLI: one line, non-zero exit.
    const edit = await sandbox.run(['templates', 'update', 'order.shipped', '--environment', environment.id, '--file', file('Late')], { env });
    expect(edit.code).toBe(1);
    expect(edit.stderr).toMatch(/^engage: template_archived: template order.shipped is archived\n$/);
  }, 120_000);
});
