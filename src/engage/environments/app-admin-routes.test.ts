import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, itSqlite, type Harness } from '../../../test/helpers/harness';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { startApnsFake, type ApnsFake } from '../../../test/fakes/apns-fake';
import { startFcmFake, type FcmFake } from '../../../test/fakes/fcm-fake';
import { testCa } from '../../../test/fixtures/messaging';
import { bootstrap, transition } from '../../../test/fixtures/engage';
import { SYSTEM_ACTOR } from '../../identity/audit';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { createLogger } from '../../platform/logger';

/**
 * Apps, provider credentials and access keys on the engagement administration API (issue 24
 * points 2 and 3): the status table of every route, the state afterwards, isolation between
 * environments, secrets absent from answers, audit and the database file, rotation with an
 * overlap and expiry. On the test engine (SQLite, or PostgreSQL with ENGAGE_TEST_ENGINE).
 */
let h: Harness;
let a: EngageAdminFixture;
let apns: ApnsFake;
let fcm: FcmFake;
let full: string;
let reader: string;
let sender: string;
let prodOnly: string;
let prodId: string;
const { read, manage, send } = ENGAGE_ADMIN_API.scopes;
const TOPIC = 'com.example.shop';
/** Every log line of the instance (debug and up): no key or provider key may appear in one. */
const lines: string[] = [];
/** Secrets handed to or shown by the instance in these tests. */
const secrets: string[] = [];
const ecPem = () => {
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  secrets.push(pem.split('\n')[1]);
  return pem;
};

beforeAll(async () => {
  let clockNow = () => Date.now();
  apns = await startApnsFake({ ca: testCa(), topic: TOPIC, now: () => clockNow() });
  fcm = await startFcmFake({ ca: testCa(), projectId: 'test-project', now: () => clockNow() });
  h = await createHarness(
    { apnsUrl: apns.url, apnsSandboxUrl: apns.url, fcmUrl: fcm.url, pushCaFile: testCa().caFile },
    { logger: createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) }) },
  );
  clockNow = () => h.clock.now().getTime();
  a = await createEngageAdminFixture(h);
  prodId = (await h.services.engage.environments.create({ name: 'prod' }, SYSTEM_ACTOR)).id;
  await h.services.engage.environments.create({ name: 'staging' }, SYSTEM_ACTOR);
  full = await a.token();
  reader = await a.token([read]);
  sender = await a.token([send]);
  const scoped = await a.newOperator('prod-manager@example.com', [`${manage}:prod`]);
  prodOnly = await a.token([manage], scoped.id);
});
afterAll(async () => {
  h.services.engage.messaging.close();
  await h.close();
  await apns.close();
  await fcm.close();
});

const body = async (res: Response) => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
  const b = res.status === 204 ? null : ((await res.json()) as Record<string, any>);
  if (typeof b?.key === 'string') secrets.push(b.key);
  return b;
};
const answer = async (res: Response) => [res.status, await body(res)];
const status = async (res: Response) => {
  const b = await body(res);
  return b && typeof b.error === 'string' ? [res.status, b.error] : [res.status];
};
const mkApp = async (env: string, name: string, platform = 'IOS', extra: Record<string, unknown> = {}) => {
  const res = await a.call('POST', `/environments/${env}/apps`, full, { platform, name, ...extra });
  expect(res.status).toBe(201);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
  return (await res.json()) as Record<string, any>;
};
const events = async (action: string) =>
  (await h.services.admin.auditEvents({ page: 0, size: 200 })).items.filter((e) => e.action === action);

describe('apps (issue 24 point 2)', () => {
  it('the status table: 401, 403 per scope and per narrowed permission, 400s, 404, 409', async () => {
    const app = await mkApp('prod', 'table-ios', 'IOS', { bundleId: 'com.example.table' });
    const staged = await mkApp('staging', 'staged-ios');
    const rows: [string, string, string | undefined, unknown, unknown[]][] = [
      ['GET', '/environments/prod/apps', undefined, undefined, [401, 'invalid_token']],
      ['POST', '/environments/prod/apps', undefined, { platform: 'IOS', name: 'x' }, [401, 'invalid_token']],
      ['GET', '/environments/prod/apps', sender, undefined, [403, 'insufficient_scope']],
      ['POST', '/environments/prod/apps', reader, { platform: 'IOS', name: 'x' }, [403, 'insufficient_scope']],
      ['PATCH', `/environments/prod/apps/${app.id}`, reader, { name: 'y' }, [403, 'insufficient_scope']],
      ['DELETE', `/environments/prod/apps/${app.id}`, reader, undefined, [403, 'insufficient_scope']],
      ['GET', '/environments/staging/apps', prodOnly, undefined, [403, 'access_denied']],
      ['POST', '/environments/staging/apps', prodOnly, { platform: 'IOS', name: 'x' }, [403, 'access_denied']],
      ['GET', `/environments/prod/apps/${app.id}`, prodOnly, undefined, [200]],
      ['POST', '/environments/prod/apps', full, { name: 'x' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/apps', full, { platform: 'WEB', name: 'x' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/apps', full, { platform: 'IOS', name: '  ' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/apps', full, { platform: 'IOS', name: 'x', bundleId: 'com acme' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/apps', full, { platform: 'IOS', name: 'x', appKey: 'svc_app_mine' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/apps', full, '{not json', [400, 'invalid_request']],
      ['POST', '/environments/prod/apps', full, { platform: 'IOS', name: 'table-ios' }, [409, 'name_taken']],
      ['PATCH', `/environments/prod/apps/${app.id}`, full, { status: 'GONE' }, [400, 'invalid_request']],
      ['PATCH', `/environments/prod/apps/${app.id}`, full, { appKey: 'x' }, [400, 'invalid_request']],
      ['GET', `/environments/prod/apps/${randomUUID()}`, full, undefined, [404, 'unknown_app']],
      // Another environment's app, by id or by its public key: unknown here.
      ['GET', `/environments/prod/apps/${staged.id}`, full, undefined, [404, 'unknown_app']],
      ['GET', `/environments/prod/apps/${staged.appKey}`, full, undefined, [404, 'unknown_app']],
      ['PATCH', `/environments/prod/apps/${staged.id}`, full, { name: 'stolen' }, [404, 'unknown_app']],
      ['DELETE', `/environments/prod/apps/${staged.id}`, full, undefined, [404, 'unknown_app']],
      ['GET', '/environments/nowhere/apps', full, undefined, [404, 'unknown_environment']],
    ];
    for (const [method, p, token, b, expected] of rows) expect([method, p, await status(await a.call(method, p, token, b))]).toEqual([method, p, expected]);
    // Nothing changed by the refusals.
    expect(await body(await a.call('GET', `/environments/staging/apps/${staged.id}`, full))).toMatchObject({ name: 'staged-ios', status: 'ACTIVE' });
    const res = await a.call('GET', '/environments/prod/apps', full);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(((await res.json()) as { items: { name: string }[] }).items.map((x) => x.name)).not.toContain('x');
  });

  it('create, read by id, key or name, list with pages, update, disable and enable; each audited with the environment', async () => {
    const app = await mkApp('prod', 'shop-android', 'ANDROID', { bundleId: 'com.example.shop' });
    expect(app).toEqual({
      id: app.id, environmentId: prodId, platform: 'ANDROID', name: 'shop-android', appKey: expect.stringMatching(/^svc_app_/), status: 'ACTIVE',
      bundleId: 'com.example.shop', configurationManaged: false, createdAt: expect.any(String),
    });
    for (const ref of [app.id, app.appKey, 'shop-android']) expect(await body(await a.call('GET', `/environments/prod/apps/${ref}`, reader))).toEqual(app);
    expect(await body(await a.call('GET', `/environments/${prodId}/apps/${app.id}`, reader))).toEqual(app);
    const page = await body(await a.call('GET', '/environments/prod/apps?page=0&size=1', reader));
    expect(page).toMatchObject({ page: 0, size: 1, hasMore: true });
    expect(page!.items).toHaveLength(1);

    const updated = await body(await a.call('PATCH', `/environments/prod/apps/${app.id}`, full, { name: 'shop-droid', bundleId: 'com.example.droid' }));
    expect(updated).toEqual({ ...app, name: 'shop-droid', bundleId: 'com.example.droid' });
    expect(await body(await a.call('PATCH', `/environments/prod/apps/${app.id}`, full, { bundleId: null }))).toMatchObject({ bundleId: null });
    expect(await status(await a.call('PATCH', `/environments/prod/apps/${app.id}`, full, { name: 'table-ios' }))).toEqual([409, 'name_taken']);

    // Disabled: bootstrap refused; enabled again: accepted.
    expect(await body(await a.call('PATCH', `/environments/prod/apps/${app.id}`, full, { status: 'DISABLED' }))).toMatchObject({ status: 'DISABLED' });
    expect(await h.services.engage.environments.appForKey(app.appKey)).toBeUndefined();
    expect(await body(await a.call('PATCH', `/environments/prod/apps/${app.id}`, full, { status: 'ACTIVE' }))).toMatchObject({ status: 'ACTIVE' });
    expect((await h.services.engage.environments.appForKey(app.appKey))?.id).toBe(app.id);

    const changes = (await events('app.updated')).filter((e) => e.targetId === app.id);
    expect(changes).toHaveLength(4);
    for (const e of changes) expect(e).toMatchObject({ environmentId: prodId, actorSubject: a.operator.subject, details: { environmentId: prodId } });
    expect((await events('app.created')).find((e) => e.targetId === app.id)).toMatchObject({ environmentId: prodId, details: { bundleId: 'com.example.shop' } });
    expect(JSON.stringify(await events('app.created'))).not.toContain(app.appKey);
  });

  it('delete: refused (409 app_in_use) while the app has installations or credentials; otherwise gone, and dropped from the access keys naming it', async () => {
    const used = await mkApp('prod', 'used-ios');
    await bootstrap(h, used.appKey);
    expect(await status(await a.call('DELETE', `/environments/prod/apps/${used.id}`, full))).toEqual([409, 'app_in_use']);
    expect((await a.call('GET', `/environments/prod/apps/${used.id}`, full)).status).toBe(200);

    const withCreds = await mkApp('prod', 'creds-ios');
    expect((await a.call('PUT', `/environments/prod/apps/${withCreds.id}/credentials/apns`, full, { keyId: 'K1', teamId: 'T1', topic: TOPIC, privateKey: ecPem() })).status).toBe(200);
    expect(await status(await a.call('DELETE', `/environments/prod/apps/${withCreds.id}`, full))).toEqual([409, 'app_in_use']);
    expect((await a.call('DELETE', `/environments/prod/apps/${withCreds.id}/credentials/apns`, full)).status).toBe(204);

    const other = await mkApp('prod', 'kept-ios');
    const key = await body(await a.call('POST', '/environments/prod/access-keys', full, { apps: [withCreds.id, other.id] }));
    expect(await answer(await a.call('DELETE', `/environments/prod/apps/${withCreds.id}`, full))).toEqual([204, null]);
    expect(await status(await a.call('GET', `/environments/prod/apps/${withCreds.id}`, full))).toEqual([404, 'unknown_app']);
    expect(await status(await a.call('DELETE', `/environments/prod/apps/${withCreds.id}`, full))).toEqual([404, 'unknown_app']);
    expect((await body(await a.call('GET', `/environments/prod/access-keys/${key!.id}`, full)))!.appIds).toEqual([other.id]);
    expect((await events('app.deleted')).map((e) => [e.targetId, e.environmentId])).toEqual([[withCreds.id, prodId]]);
  });

  it('a configuration-managed app refuses update, disable, delete and credentials (409 configuration_managed); apply passes allowManaged', async () => {
    const app = await mkApp('prod', 'managed-ios');
    await h.sql.run('UPDATE apps SET configuration_managed = 1 WHERE id = ?', [app.id]);
    expect(await body(await a.call('GET', `/environments/prod/apps/${app.id}`, full))).toMatchObject({ configurationManaged: true });
    for (const [method, p, b] of [
      ['PATCH', `/environments/prod/apps/${app.id}`, { name: 'renamed' }],
      ['PATCH', `/environments/prod/apps/${app.id}`, { status: 'DISABLED' }],
      ['DELETE', `/environments/prod/apps/${app.id}`, undefined],
      ['PUT', `/environments/prod/apps/${app.id}/credentials/apns`, { keyId: 'K1', teamId: 'T1', topic: TOPIC, privateKey: ecPem() }],
    ] as const)
      expect(await status(await a.call(method, p, full, b))).toEqual([409, 'configuration_managed']);
    await expect(h.services.engage.environments.disableApp(app.id, 'prod', SYSTEM_ACTOR)).rejects.toThrow(/managed by engage apply/);
    expect(await h.services.engage.environments.updateApp('prod', app.id, { name: 'renamed' }, SYSTEM_ACTOR, { allowManaged: true })).toMatchObject({ name: 'renamed' });
  });
});

describe('live, narrowed permissions on these routes', () => {
  it('a read permission narrowed to prod does not allow changes there even with the manage scope; a removed permission takes effect on an unexpired token', async () => {
    const readerOfProd = await a.newOperator('prod-reader@example.com', [`${read}:prod`]);
    const token = await a.token([read, manage], readerOfProd.id);
    expect(await status(await a.call('GET', '/environments/prod/apps', token))).toEqual([200]);
    expect(await status(await a.call('GET', '/environments/prod/access-keys', token))).toEqual([200]);
    expect(await status(await a.call('POST', '/environments/prod/apps', token, { platform: 'IOS', name: 'not-made' }))).toEqual([403, 'access_denied']);
    expect(await status(await a.call('POST', '/environments/prod/access-keys', token, { apps: ['table-ios'] }))).toEqual([403, 'access_denied']);
    expect(await status(await a.call('GET', '/environments/staging/apps', token))).toEqual([403, 'access_denied']);
    await a.identity.revoke(readerOfProd.subject);
    expect(await status(await a.call('GET', '/environments/prod/apps', token))).toEqual([403, 'access_denied']);
    expect(await status(await a.call('GET', '/environments/prod/apps/not-made', full))).toEqual([404, 'unknown_app']);
  });
});

describe('provider credentials (issue 24 point 2)', () => {
  it('APNs: uploaded, read back as metadata only, checked against APNs without a push, deleted', async () => {
    const ios = await mkApp('prod', 'push-ios');
    const android = await mkApp('prod', 'push-android', 'ANDROID');
    const keyPem = ecPem();
    apns.addKey('ABC123DEFG', 'TEAM123456', keyPem);
    const put = { keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: TOPIC, sandbox: true, privateKey: keyPem };
    const base = `/environments/prod/apps/${ios.id}/credentials`;
    const rows: [string, string, string | undefined, unknown, unknown[]][] = [
      ['PUT', `${base}/apns`, undefined, put, [401, 'invalid_token']],
      ['PUT', `${base}/apns`, reader, put, [403, 'insufficient_scope']],
      ['GET', base, sender, undefined, [403, 'insufficient_scope']],
      ['POST', `${base}/apns/check`, reader, undefined, [403, 'insufficient_scope']],
      ['PUT', `/environments/staging/apps/${ios.id}/credentials/apns`, prodOnly, put, [403, 'access_denied']],
      ['PUT', `/environments/staging/apps/${ios.id}/credentials/apns`, full, put, [404, 'unknown_app']],
      ['PUT', `${base}/apns`, full, { ...put, privateKey: 'junk' }, [400, 'invalid_credentials']],
      ['PUT', `${base}/apns`, full, { ...put, keyId: 'no spaces' }, [400, 'invalid_request']],
      ['PUT', `${base}/apns`, full, { ...put, extra: 1 }, [400, 'invalid_request']],
      ['PUT', `/environments/prod/apps/${android.id}/credentials/apns`, full, put, [400, 'invalid_credentials']],
      ['GET', `${base}/apns`, full, undefined, [404, 'credentials_not_found']],
      ['GET', `${base}/webpush`, full, undefined, [400, 'invalid_request']],
      ['POST', `${base}/apns/check`, full, undefined, [404, 'credentials_not_found']],
      ['DELETE', `${base}/apns`, full, undefined, [404, 'credentials_not_found']],
    ];
    for (const [method, p, token, b, expected] of rows) expect([method, p, await status(await a.call(method, p, token, b))]).toEqual([method, p, expected]);

    const set = await body(await a.call('PUT', `${base}/apns`, full, put));
    const meta = { appId: ios.id, provider: 'APNS', keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: TOPIC, sandbox: true, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), updatedAt: expect.any(String) };
    expect(set).toEqual(meta);
    expect(await body(await a.call('GET', `${base}/apns`, reader))).toEqual(set);
    expect(await body(await a.call('GET', base, reader))).toEqual({ items: [set] });

    // The provider accepted the provider token: BadDeviceToken for a device token that cannot exist; nothing delivered.
    const before = apns.delivered.size;
    const checked = await body(await a.call('POST', `${base}/apns/check`, full));
    expect(checked).toEqual({ ...set, check: { ok: true, status: 400, reason: 'BadDeviceToken', checkedAt: expect.any(String) } });
    expect(apns.delivered.size).toBe(before);

    // A key APNs does not know: refused.
    const unknown = await mkApp('prod', 'unknown-key-ios');
    await a.call('PUT', `/environments/prod/apps/${unknown.id}/credentials/apns`, full, { ...put, keyId: 'ZZZ999', privateKey: ecPem() });
    expect((await body(await a.call('POST', `/environments/prod/apps/${unknown.id}/credentials/apns/check`, full)))!.check).toMatchObject({ ok: false, status: 403, reason: 'InvalidProviderToken' });

    // Secrets nowhere: not in answers, not in the audit trail.
    const shown = JSON.stringify([set, checked, await body(await a.call('GET', base, reader))]);
    const pemBody = keyPem.split('\n')[1];
    expect(shown).not.toContain(pemBody);
    const audit = await events('push_credentials.set');
    expect(audit.find((e) => e.targetId === ios.id)).toMatchObject({ environmentId: prodId, details: { provider: 'APNS', keyId: 'ABC123DEFG', environmentId: prodId } });
    expect(JSON.stringify(audit)).not.toContain(pemBody);

    expect(await answer(await a.call('DELETE', `${base}/apns`, full))).toEqual([204, null]);
    expect(await body(await a.call('GET', base, reader))).toEqual({ items: [] });
    expect((await events('push_credentials.deleted')).some((e) => e.targetId === ios.id && e.environmentId === prodId)).toBe(true);
  });

  it('FCM: the service account read back as its project and client email; the check exchanges the JWT at the token endpoint', async () => {
    const android = await mkApp('prod', 'fcm-android', 'ANDROID');
    const base = `/environments/prod/apps/${android.id}/credentials`;
    const sa = fcm.serviceAccount();
    secrets.push(sa.private_key.split('\n')[1]);
    expect(await status(await a.call('PUT', `${base}/fcm`, full, { serviceAccount: { project_id: 'p' } }))).toEqual([400, 'invalid_credentials']);
    expect(await status(await a.call('PUT', `${base}/fcm`, full, sa))).toEqual([400, 'invalid_request']);
    const set = await body(await a.call('PUT', `${base}/fcm`, full, { serviceAccount: sa }));
    expect(set).toEqual({
      appId: android.id, provider: 'FCM', projectId: 'test-project', clientEmail: sa.client_email, tokenUri: sa.token_uri,
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), updatedAt: expect.any(String),
    });
    const asked = fcm.tokenRequests();
    expect((await body(await a.call('POST', `${base}/fcm/check`, full)))!.check).toMatchObject({ ok: true, status: 200 });
    expect(fcm.tokenRequests()).toBe(asked + 1);
    expect(fcm.sends.length).toBe(0);

    // Another key under the same account: the token endpoint refuses the JWT.
    const wrong = { ...sa, private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    secrets.push(wrong.private_key.split('\n')[1]);
    await a.call('PUT', `${base}/fcm`, full, { serviceAccount: wrong });
    expect((await body(await a.call('POST', `${base}/fcm/check`, full)))!.check).toMatchObject({ ok: false, status: 400, reason: 'invalid_grant' });
    const shown = JSON.stringify(await body(await a.call('GET', base, full)));
    expect(shown).not.toContain(wrong.private_key.split('\n')[1]);

    // A token endpoint of the uploader's choosing is refused at upload (the check would otherwise probe any address): the stored credentials stay.
    const before = await body(await a.call('GET', base, full));
    const foreign = await a.call('PUT', `${base}/fcm`, full, { serviceAccount: { ...sa, token_uri: 'http://127.0.0.1:1/token' } });
    expect(foreign.status).toBe(400);
    expect(await body(await a.call('GET', base, full))).toEqual(before);
    expect(JSON.stringify(await events('push_credentials.set'))).not.toContain(sa.private_key.split('\n')[1]);
  });

  itSqlite('the provider keys are sealed in the database file: no distinctive part of a PEM in its bytes', async () => {
    const ios = await mkApp('prod', 'sealed-ios');
    const keyPem = ecPem();
    expect((await a.call('PUT', `/environments/prod/apps/${ios.id}/credentials/apns`, full, { keyId: 'K1', teamId: 'T1', topic: TOPIC, privateKey: keyPem })).status).toBe(200);
    const dir = h.config.dataDir;
    const files = ['engage.db', 'engage.db-wal'].map((f) => path.join(dir, f)).filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    const line = keyPem.split('\n')[2];
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(line))).toBe(false);
  });
});

describe('access keys (issue 24 point 3)', () => {
  const auth = (key: string) => h.services.engage.environments.authenticateAccessKey(key);

  it('the status table', async () => {
    const app = await mkApp('prod', 'keys-ios');
    const staged = await mkApp('staging', 'keys-staged');
    const stagedKey = await body(await a.call('POST', '/environments/staging/access-keys', full, { apps: [staged.id] }));
    const k = await body(await a.call('POST', '/environments/prod/access-keys', full, { apps: [app.id] }));
    const rows: [string, string, string | undefined, unknown, unknown[]][] = [
      ['GET', '/environments/prod/access-keys', undefined, undefined, [401, 'invalid_token']],
      ['POST', '/environments/prod/access-keys', reader, { apps: [app.id] }, [403, 'insufficient_scope']],
      ['POST', `/environments/prod/access-keys/${k!.id}/rotation`, reader, {}, [403, 'insufficient_scope']],
      ['DELETE', `/environments/prod/access-keys/${k!.id}`, reader, undefined, [403, 'insufficient_scope']],
      ['GET', '/environments/prod/access-keys', sender, undefined, [403, 'insufficient_scope']],
      ['GET', '/environments/staging/access-keys', prodOnly, undefined, [403, 'access_denied']],
      ['DELETE', `/environments/staging/access-keys/${stagedKey!.id}`, prodOnly, undefined, [403, 'access_denied']],
      ['POST', '/environments/prod/access-keys', full, { apps: [] }, [400, 'invalid_request']],
      ['POST', '/environments/prod/access-keys', full, { name: 'no apps' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/access-keys', full, { apps: [app.id], expiresAt: 'tomorrow' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/access-keys', full, { apps: [app.id], expiresAt: '2020-01-01T00:00:00Z' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/access-keys', full, { apps: [app.id], key: 'svc_key_mine' }, [400, 'invalid_request']],
      ['POST', '/environments/prod/access-keys', full, { apps: [staged.id] }, [404, 'unknown_app']],
      ['POST', `/environments/prod/access-keys/${k!.id}/rotation`, full, { overlapSeconds: 604801 }, [400, 'invalid_request']],
      ['POST', `/environments/prod/access-keys/${k!.id}/rotation`, full, { overlapSeconds: -1 }, [400, 'invalid_request']],
      ['POST', `/environments/prod/access-keys/${k!.id}/rotation`, full, { overlapSeconds: 1.5 }, [400, 'invalid_request']],
      ['GET', `/environments/prod/access-keys/${randomUUID()}`, full, undefined, [404, 'unknown_access_key']],
      // Another environment's key: unknown here, for every verb.
      ['GET', `/environments/prod/access-keys/${stagedKey!.id}`, full, undefined, [404, 'unknown_access_key']],
      ['POST', `/environments/prod/access-keys/${stagedKey!.id}/rotation`, full, {}, [404, 'unknown_access_key']],
      ['DELETE', `/environments/prod/access-keys/${stagedKey!.id}`, full, undefined, [404, 'unknown_access_key']],
    ];
    for (const [method, p, token, b, expected] of rows) expect([method, p, await status(await a.call(method, p, token, b))]).toEqual([method, p, expected]);
    // The staging key still works, unchanged.
    expect((await auth(stagedKey!.key))?.id).toBe(stagedKey!.id);
    expect(await body(await a.call('GET', `/environments/staging/access-keys/${stagedKey!.id}`, full))).toMatchObject({ status: 'ACTIVE', rotatedAt: null });
  });

  it('created with the key shown once; lists and reads show the prefix and last four characters, never the key', async () => {
    const app = await mkApp('prod', 'shown-ios');
    const created = await body(await a.call('POST', '/environments/prod/access-keys', full, { name: 'backend', apps: [app.id, 'shown-ios'] }));
    expect(created).toEqual({
      id: created!.id, environmentId: prodId, name: 'backend', appIds: [app.id], status: 'ACTIVE', createdAt: expect.any(String), rotatedAt: null, revokedAt: null,
      prefix: 'svc_key_', keyHint: created!.key.slice(-4), expiresAt: null, previousExpiresAt: null, configurationManaged: false, key: expect.stringMatching(/^svc_key_/),
    });
    const { key, ...view } = created!;
    expect(await body(await a.call('GET', `/environments/prod/access-keys/${created!.id}`, reader))).toEqual(view);
    const list = await body(await a.call('GET', '/environments/prod/access-keys?size=200', reader));
    expect(list!.items).toContainEqual(view);
    expect(JSON.stringify(list)).not.toContain(key);
    expect(JSON.stringify(await h.services.admin.auditEvents({ page: 0, size: 200 }))).not.toContain(key);
    expect((await events('access_key.created')).find((e) => e.targetId === created!.id)).toMatchObject({ environmentId: prodId, actorSubject: a.operator.subject });
    // The key works from its creation, over HTTP: a binding transition with a made-up code is not a 401.
    expect((await transition(h, key, 'no-such-code', { externalId: 'u1' })).status).not.toBe(401);
    expect((await transition(h, 'svc_key_madeup', 'no-such-code', { externalId: 'u1' })).status).toBe(401);
  });

  it('rotation with an overlap: both secrets work until it ends, then only the new; without one the old stops at once', async () => {
    const app = await mkApp('prod', 'rotate-ios');
    const created = await body(await a.call('POST', '/environments/prod/access-keys', full, { apps: [app.id] }));
    const rotated = await body(await a.call('POST', `/environments/prod/access-keys/${created!.id}/rotation`, full, { overlapSeconds: 3600 }));
    const end = new Date(h.clock.now().getTime() + 3600_000).toISOString();
    expect(rotated).toMatchObject({ id: created!.id, rotatedAt: h.clock.now().toISOString(), keyHint: rotated!.key.slice(-4), previousExpiresAt: end });
    expect(rotated!.key).not.toBe(created!.key);
    expect((await auth(created!.key))?.id).toBe(created!.id);
    expect((await auth(rotated!.key))?.id).toBe(created!.id);
    // Seen by another process on the same database at once (the lookup reads the database each request).
    const other = await h.otherProcess();
    expect((await other.engage.environments.authenticateAccessKey(created!.key))?.id).toBe(created!.id);
    h.clock.advance(3599);
    expect((await auth(created!.key))?.id).toBe(created!.id);
    h.clock.advance(1);
    full = await a.token();
    expect(await auth(created!.key)).toBeUndefined();
    expect((await auth(rotated!.key))?.id).toBe(created!.id);
    expect(await body(await a.call('GET', `/environments/prod/access-keys/${created!.id}`, full))).toMatchObject({ keyHint: rotated!.key.slice(-4) });
    const audit = (await events('access_key.rotated')).find((e) => e.targetId === created!.id);
    expect(audit).toMatchObject({ environmentId: prodId, details: { overlapSeconds: 3600, previousExpiresAt: end } });
    expect(JSON.stringify(audit)).not.toContain(rotated!.key);

    // Without a body: no overlap.
    const again = await body(await a.call('POST', `/environments/prod/access-keys/${created!.id}/rotation`, full));
    expect(again).toMatchObject({ previousExpiresAt: null });
    expect(await auth(rotated!.key)).toBeUndefined();
    expect((await auth(again!.key))?.id).toBe(created!.id);

    // A rotation during an overlap ends the earlier one: only the secret just replaced is kept.
    const r1 = await body(await a.call('POST', `/environments/prod/access-keys/${created!.id}/rotation`, full, { overlapSeconds: 600 }));
    const r2 = await body(await a.call('POST', `/environments/prod/access-keys/${created!.id}/rotation`, full, { overlapSeconds: 600 }));
    expect(await auth(again!.key)).toBeUndefined();
    expect((await auth(r1!.key))?.id).toBe(created!.id);
    expect((await auth(r2!.key))?.id).toBe(created!.id);

    // Revoked: every secret stops, on the next request of every process; no rotation revives it.
    expect(await answer(await a.call('DELETE', `/environments/prod/access-keys/${created!.id}`, full))).toEqual([204, null]);
    expect(await auth(r1!.key)).toBeUndefined();
    expect(await auth(r2!.key)).toBeUndefined();
    expect(await other.engage.environments.authenticateAccessKey(r2!.key)).toBeUndefined();
    expect((await other.request('/v1/installation-binding-transitions', { method: 'POST', headers: { authorization: `Bearer ${r2!.key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify({ bindingCode: 'x', target: { externalId: 'u' } }) })).status).toBe(401);
    expect(await status(await a.call('POST', `/environments/prod/access-keys/${created!.id}/rotation`, full, {}))).toEqual([409, 'access_key_revoked']);
    expect(await body(await a.call('GET', `/environments/prod/access-keys/${created!.id}`, full))).toMatchObject({ status: 'REVOKED', revokedAt: expect.any(String) });
    expect((await events('access_key.revoked')).find((e) => e.targetId === created!.id)).toMatchObject({ environmentId: prodId });
    // A repeated revocation is harmless and records nothing more.
    expect((await a.call('DELETE', `/environments/prod/access-keys/${created!.id}`, full)).status).toBe(204);
    expect((await events('access_key.revoked')).filter((e) => e.targetId === created!.id)).toHaveLength(1);
  });

  it('rotations racing: one replaces the secret, the other is 409 operation_conflict; no caller is handed a key that does not work', async () => {
    const app = await mkApp('prod', 'race-ios');
    const k = await body(await a.call('POST', '/environments/prod/access-keys', full, { apps: [app.id] }));
    const answers = await Promise.all([1, 2, 3].map(() => a.call('POST', `/environments/prod/access-keys/${k!.id}/rotation`, full, {})));
    const bodies = await Promise.all(answers.map(body));
    const won = bodies.filter((b, i) => answers[i].status === 200);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const [i, b] of bodies.entries()) if (answers[i].status !== 200) expect([answers[i].status, b!.error]).toEqual([409, 'operation_conflict']);
    // The last rotation that won holds the key; a stale compare-and-swap changes nothing.
    const current = await body(await a.call('GET', `/environments/prod/access-keys/${k!.id}`, full));
    const holder = won.find((b) => b!.key.endsWith(current!.keyHint));
    expect((await auth(holder!.key))?.id).toBe(k!.id);
    const row = await h.sql.get<{ keyDigest: string }>('SELECT key_digest AS "keyDigest" FROM access_keys WHERE id = ?', [k!.id]);
    expect(await h.services.store.tx((tx) => tx.environments.rotateAccessKeySecret(prodId, k!.id, 'stale', { keyHint: 'xxxx' }))).toBe(0);
    expect(await h.sql.get<{ keyDigest: string }>('SELECT key_digest AS "keyDigest" FROM access_keys WHERE id = ?', [k!.id])).toEqual(row);
  });

  it('expiry: the key works until expiresAt, never after; an expired key is not rotated', async () => {
    const app = await mkApp('prod', 'expiry-ios');
    const expiresAt = new Date(h.clock.now().getTime() + 60_000).toISOString();
    const k = await body(await a.call('POST', '/environments/prod/access-keys', full, { apps: [app.id], expiresAt }));
    expect(k).toMatchObject({ expiresAt });
    expect((await auth(k!.key))?.id).toBe(k!.id);
    h.clock.advance(60);
    full = await a.token();
    expect(await auth(k!.key)).toBeUndefined();
    expect(await status(await a.call('POST', `/environments/prod/access-keys/${k!.id}/rotation`, full, { overlapSeconds: 60 }))).toEqual([409, 'access_key_expired']);
  });

  it('a configuration-managed key refuses rotation and revocation (409 configuration_managed) unless allowManaged', async () => {
    const app = await mkApp('prod', 'managed-key-ios');
    const k = await body(await a.call('POST', '/environments/prod/access-keys', full, { apps: [app.id] }));
    await h.sql.run('UPDATE access_keys SET configuration_managed = 1 WHERE id = ?', [k!.id]);
    expect(await status(await a.call('POST', `/environments/prod/access-keys/${k!.id}/rotation`, full, {}))).toEqual([409, 'configuration_managed']);
    expect(await status(await a.call('DELETE', `/environments/prod/access-keys/${k!.id}`, full))).toEqual([409, 'configuration_managed']);
    expect((await auth(k!.key))?.id).toBe(k!.id);
    await h.services.engage.environments.revokeAccessKey(k!.id, SYSTEM_ACTOR, { allowManaged: true });
    expect(await auth(k!.key)).toBeUndefined();
  });
});

describe('logs', () => {
  it('no access key and no provider key in any log line of the instance', () => {
    expect(lines.length).toBeGreaterThan(0);
    expect(secrets.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(lines.filter((l) => l.includes(secret))).toEqual([]);
  });
});
