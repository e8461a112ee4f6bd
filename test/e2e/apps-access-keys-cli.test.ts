import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

/**
 * Issue 24 points 2 and 3 from the CLI of the built executable, on the database: the same
 * services as the administration API's apps, credentials and access-key routes. Every command
 * answers --json; a refusal is one line on stderr and exit status 1.
 */
let sandbox: Sandbox;
type App = { id: string; name: string; appKey: string; bundleId: string | null; status: string };
type Key = { id: string; key?: string; prefix: string; keyHint: string; expiresAt: string | null; previousExpiresAt: string | null; status: string; appIds: string[] };

beforeAll(async () => {
  sandbox = await createSandbox({ prefix: 'engage-apps-cli-' });
  await sandbox.cli(['environments', 'create', '--name', 'prod']);
  await sandbox.cli(['environments', 'create', '--name', 'staging']);
}, 60_000);
afterAll(async () => {
  await sandbox?.cleanup();
});

describe('engage apps and access-keys', () => {
  it('apps: create with a bundle id, show, update, disable, enable, delete', async () => {
    const app = await sandbox.cliJson<App>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'shop-ios', '--bundle-id', 'com.acme.shop', '--json']);
    expect(app).toMatchObject({ name: 'shop-ios', bundleId: 'com.acme.shop', status: 'ACTIVE', appKey: expect.stringMatching(/^svc_app_/) });
    expect(await sandbox.cliJson<App>(['apps', 'show', 'shop-ios', '--environment', 'prod', '--json'])).toEqual(app);
    const wrongEnv = await sandbox.run(['apps', 'show', app.id, '--environment', 'staging']);
    expect([wrongEnv.code, wrongEnv.stderr.trim()]).toEqual([1, `engage: unknown_app: no app ${app.id} in this environment`]);
    expect(await sandbox.cliJson<App>(['apps', 'update', app.id, '--environment', 'prod', '--name', 'shop-iphone', '--json'])).toMatchObject({ name: 'shop-iphone', bundleId: 'com.acme.shop' });
    expect(await sandbox.cliJson<App>(['apps', 'update', app.id, '--environment', 'prod', '--no-bundle-id', '--json'])).toMatchObject({ bundleId: null });
    expect(await sandbox.cliJson<App>(['apps', 'disable', app.id, '--json'])).toMatchObject({ status: 'DISABLED' });
    expect(await sandbox.cliJson<App>(['apps', 'enable', app.id, '--json'])).toMatchObject({ status: 'ACTIVE' });
    const bad = await sandbox.run(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'x', '--bundle-id', 'com acme']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^engage: invalid_request: bundleId/);
    expect(await sandbox.cliJson(['apps', 'delete', app.id, '--environment', 'prod', '--json'])).toEqual({ deleted: true, id: app.id, name: 'shop-iphone' });
    expect((await sandbox.cliJson<App[]>(['apps', 'list', '--environment', 'prod', '--json'])).map((a) => a.id)).not.toContain(app.id);
  });

  it('credentials: set-apns, credentials (metadata only), delete-credentials; an app with credentials is not deleted', async () => {
    const app = await sandbox.cliJson<App>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'push-ios', '--json']);
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const file = path.join(sandbox.dir, 'AuthKey.p8');
    writeFileSync(file, pem);
    await sandbox.cli(['apps', 'set-apns', app.id, '--key-file', file, '--key-id', 'ABC123DEFG', '--team-id', 'TEAM123456', '--topic', 'com.acme.shop']);
    const shown = await sandbox.cliJson<Record<string, unknown>[]>(['apps', 'credentials', 'push-ios', '--environment', 'prod', '--json']);
    expect(shown).toEqual([{ appId: app.id, provider: 'APNS', keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.acme.shop', sandbox: false, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), updatedAt: expect.any(String) }]);
    expect(JSON.stringify(shown)).not.toContain(pem.split('\n')[1]);
    const inUse = await sandbox.run(['apps', 'delete', app.id, '--environment', 'prod']);
    expect([inUse.code, inUse.stderr]).toEqual([1, expect.stringMatching(/^engage: app_in_use: /)]);
    expect(await sandbox.cliJson(['apps', 'delete-credentials', app.id, '--provider', 'apns', '--json'])).toEqual({ deleted: true, app: app.id, provider: 'APNS' });
    const none = await sandbox.run(['apps', 'check-credentials', app.id, '--provider', 'APNS']);
    expect([none.code, none.stderr.trim()]).toEqual([1, 'engage: credentials_not_found: app push-ios has no APNS credentials']);
  });

  it('access keys: create --expires-at, list and show without the key, rotate --overlap, revoke', async () => {
    await sandbox.cli(['apps', 'create', '--environment', 'prod', '--platform', 'ANDROID', '--name', 'keys-android']);
    const created = await sandbox.cliJson<Key>(['access-keys', 'create', '--environment', 'prod', '--app', 'keys-android', '--name', 'backend', '--expires-at', '2099-01-01T00:00:00Z', '--json']);
    expect(created).toMatchObject({ prefix: 'svc_key_', keyHint: created.key!.slice(-4), expiresAt: '2099-01-01T00:00:00.000Z', status: 'ACTIVE' });
    const list = await sandbox.cliJson<Key[]>(['access-keys', 'list', '--environment', 'prod', '--json']);
    expect(list.find((k) => k.id === created.id)).toMatchObject({ keyHint: created.keyHint });
    expect(JSON.stringify(list)).not.toContain(created.key);
    const show = await sandbox.cliJson<Key>(['access-keys', 'show', created.id, '--environment', 'prod', '--json']);
    expect(show.key).toBeUndefined();
    const other = await sandbox.run(['access-keys', 'show', created.id, '--environment', 'staging']);
    expect([other.code, other.stderr.trim()]).toEqual([1, `engage: unknown_access_key: no access key ${created.id}`]);

    const tooLong = await sandbox.run(['access-keys', 'rotate', created.id, '--overlap', '8d']);
    expect([tooLong.code, tooLong.stderr]).toEqual([1, expect.stringMatching(/^engage: invalid_request: overlap: must be 0 to 604800 seconds/)]);
    const rotated = await sandbox.cliJson<Key>(['access-keys', 'rotate', created.id, '--overlap', '24h', '--json']);
    expect(rotated.key).not.toBe(created.key);
    expect(rotated.previousExpiresAt).not.toBeNull();
    const text = await sandbox.cli(['access-keys', 'rotate', created.id]);
    expect(text).toMatch(/access key \(shown once, store it now\): svc_key_/);
    expect(await sandbox.cliJson<Key>(['access-keys', 'revoke', created.id, '--environment', 'prod', '--json'])).toMatchObject({ status: 'REVOKED' });
    const again = await sandbox.run(['access-keys', 'rotate', created.id]);
    expect([again.code, again.stderr.trim()]).toEqual([1, `engage: access_key_revoked: access key ${created.id} is revoked`]);

    const past = await sandbox.run(['access-keys', 'create', '--environment', 'prod', '--app', 'keys-android', '--expires-at', '2001-01-01T00:00:00Z']);
    expect([past.code, past.stderr.trim()]).toEqual([1, 'engage: invalid_request: expiresAt: must be in the future']);
  });

  it('every change is in the audit trail with its environment, and no key', async () => {
    const events = await sandbox.cliJson<{ items: { action: string; details: unknown }[] }>(['audit', 'list', '--environment', 'prod', '--size', '200', '--json']);
    const actions = events.items.map((e) => e.action);
    for (const a of ['app.created', 'app.updated', 'app.deleted', 'app.disabled', 'push_credentials.set', 'push_credentials.deleted', 'access_key.created', 'access_key.rotated', 'access_key.revoked'])
      expect(actions).toContain(a);
    expect(JSON.stringify(events)).not.toMatch(/svc_key_|PRIVATE KEY/);
  });
});
