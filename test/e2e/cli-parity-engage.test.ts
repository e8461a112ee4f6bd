/**
 * Issue 24, CLI parity for the engagement half, on the built executable: each engagement
 * resource (environments, apps, provider credentials, access keys, templates and previews, test
 * groups, audit) changed through the CLI on the database (`--json`) and through
 * `/t/control/engage/admin` of an `engage serve` on the same database gives the same answer
 * (ids, keys and times aside), the same error for the same bad input, and what one door leaves
 * the other reads. Every CLI change is audited as `os:<user>` with its environment, every HTTP
 * change as the token's subject; no secret is printed twice, nor audited, nor logged.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';
import { engageAdminToken } from '../helpers/engage-admin-token';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, compared whole
type Json = any;
const PASSWORD = 'correct horse battery staple';
const TEMPLATE = { key: 'hello', apps: ['ios-cli'], defaultLocale: 'en', variables: { name: { type: 'string' } }, localizations: { en: { title: 'Hi {{name}}', body: 'Welcome' } } };

describe('engagement administration: the CLI and the API give the same results', () => {
  let sb: Sandbox;
  let server: RunningServer;
  let token: string;
  let subject: string;
  const printed: string[] = [];
  const installations: string[] = [];
  const secrets: string[] = [];
  const osActor = `os:${userInfo().username}`;
  const apnsKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-parity-engage-' });
    subject = (await sb.cliJson<{ subject: string }>(['operators', 'create', '--email', 'ops@example.com', '--password-stdin'], { stdin: `${PASSWORD}\n` })).subject;
    server = await sb.serve();
    token = await engageAdminToken(server.url, 'ops@example.com', PASSWORD);
    secrets.push(token);
  }, 120_000);
  afterAll(async () => {
    await sb?.cleanup();
  });

  /** The CLI with --json: `{ ok: true, body }` (stdout) or `{ ok: false, body }` (the one JSON error line). */
  const cli = async (args: string[]): Promise<{ ok: boolean; body: Json }> => {
    const r = await sb.run([...args, '--json']);
    printed.push(r.stdout, r.stderr);
    if (r.code === 0) return { ok: true, body: r.stdout.trim() ? JSON.parse(r.stdout) : null };
    expect(r.code, `engage ${args.join(' ')}: ${r.stderr}`).toBe(1);
    return { ok: false, body: JSON.parse(r.stderr) };
  };
  const ok = async (args: string[]): Promise<Json> => {
    const r = await cli(args);
    expect(r.ok, `engage ${args.join(' ')} failed: ${JSON.stringify(r.body)}`).toBe(true);
    return r.body;
  };
  const api = async (method: string, route: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${server.url}/t/control/engage/admin${route}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    printed.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const without = (o: Json, ...keys: string[]): Json => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
  /** The same bad input through both doors: one `{error, message}` each, and the same. */
  const sameError = async (args: string[], method: string, route: string, body: unknown, status: number) => {
    const c = await cli(args);
    const h = await api(method, route, body);
    expect(c.ok).toBe(false);
    expect(h.status).toBe(status);
    // The API's errors are `{error}` (the contract's form), with an `error_description` only for
    // a validation failure; the CLI's always carry a message: the codes agree, and the words too
    // where the API has some.
    expect(c.body.error).toBe(h.body.error);
    if (h.body.error_description !== undefined) expect(c.body.message).toBe(h.body.error_description);
    return { cli: c.body, http: h.body };
  };

  it('environments: create, read, update, disable and enable alike; each door reads what the other made', async () => {
    const byCli = await ok(['environments', 'create', '--name', 'cli-env', '--display-name', 'Made here']);
    const byApi = await api('POST', '/environments', { name: 'api-env', displayName: 'Made here' });
    expect(byApi.status).toBe(201);
    expect(without(byCli, 'id', 'name', 'createdAt')).toEqual(without(byApi.body, 'id', 'name', 'createdAt'));
    expect((await api('GET', '/environments/cli-env')).body).toEqual(byCli);
    expect(await ok(['environments', 'show', 'api-env'])).toEqual(byApi.body);

    const u1 = await ok(['environments', 'update', 'cli-env', '--display-name', 'Renamed']);
    const u2 = await api('PUT', '/environments/api-env', { displayName: 'Renamed' });
    expect(without(u1, 'id', 'name', 'createdAt')).toEqual(without(u2.body, 'id', 'name', 'createdAt'));
    const cleared = await ok(['environments', 'update', 'api-env', '--no-display-name']);
    expect((await api('GET', '/environments/api-env')).body).toEqual(cleared);
    expect(cleared.displayName).toBe('api-env');

    const d1 = await ok(['environments', 'disable', 'cli-env']);
    const d2 = await api('PUT', '/environments/api-env', { status: 'DISABLED' });
    expect([d1.status, d2.body.status]).toEqual(['DISABLED', 'DISABLED']);
    expect((await api('GET', '/environments/cli-env')).body).toEqual(d1);
    expect(await ok(['environments', 'enable', 'api-env'])).toMatchObject({ status: 'ACTIVE' });
    expect((await api('PUT', '/environments/cli-env', { status: 'ACTIVE' })).body.status).toBe('ACTIVE');

    // The lists hold the same environments.
    const listed = await ok(['environments', 'list']);
    const served = (await api('GET', '/environments')).body;
    expect(listed.map((e: Json) => e.name)).toEqual((served.items ?? served).map((e: Json) => e.name));
  });

  it('environments: the same error for a taken name, a bad name and an unknown environment', async () => {
    await sameError(['environments', 'create', '--name', 'cli-env'], 'POST', '/environments', { name: 'cli-env' }, 409);
    await sameError(['environments', 'create', '--name', 'Prod Env'], 'POST', '/environments', { name: 'Prod Env' }, 400);
    await sameError(['environments', 'show', 'nowhere'], 'GET', '/environments/nowhere', undefined, 404);
    await sameError(['environments', 'update', 'nowhere', '--display-name', 'x'], 'PUT', '/environments/nowhere', { displayName: 'x' }, 404);
  });

  it('apps: create, update, disable alike, with the same errors (taken name, unknown app, invalid platform)', async () => {
    const E = ['--environment', 'cli-env'];
    const byCli = await ok(['apps', 'create', ...E, '--platform', 'IOS', '--name', 'ios-cli', '--bundle-id', 'com.acme.shop']);
    const byApi = await api('POST', '/environments/cli-env/apps', { platform: 'IOS', name: 'ios-api', bundleId: 'com.acme.shop' });
    expect(byApi.status).toBe(201);
    const volatile = ['id', 'name', 'appKey', 'createdAt', 'updatedAt'];
    expect(without(byCli, ...volatile)).toEqual(without(byApi.body, ...volatile));
    expect((await api('GET', '/environments/cli-env/apps/ios-cli')).body).toEqual(byCli);
    expect(await ok(['apps', 'show', 'ios-api', ...E])).toEqual(byApi.body);

    const u1 = await ok(['apps', 'update', 'ios-cli', ...E, '--no-bundle-id']);
    const u2 = await api('PATCH', '/environments/cli-env/apps/ios-api', { bundleId: null });
    expect(without(u1, ...volatile)).toEqual(without(u2.body, ...volatile));
    const d1 = await ok(['apps', 'disable', 'ios-cli', ...E]);
    const d2 = await api('PATCH', '/environments/cli-env/apps/ios-api', { status: 'DISABLED' });
    expect(without(d1, ...volatile)).toEqual(without(d2.body, ...volatile));
    await ok(['apps', 'enable', 'ios-api', ...E]);
    expect((await api('PATCH', '/environments/cli-env/apps/ios-cli', { status: 'ACTIVE' })).body.status).toBe('ACTIVE');
    expect((await api('GET', '/environments/cli-env/apps/ios-api')).body.status).toBe('ACTIVE');

    await sameError(['apps', 'create', ...E, '--platform', 'IOS', '--name', 'ios-api'], 'POST', '/environments/cli-env/apps', { platform: 'IOS', name: 'ios-api' }, 409);
    await sameError(['apps', 'show', 'nope', ...E], 'GET', '/environments/cli-env/apps/nope', undefined, 404);
    // An app of another environment is unknown here, by id too.
    await sameError(['apps', 'show', byCli.id, '--environment', 'api-env'], 'GET', `/environments/api-env/apps/${byCli.id}`, undefined, 404);
    {
      // An invalid platform: the CLI refuses the option itself (a usage error, exit 64, as for
      // every option with fixed choices), the API the body (400 invalid_request): both name the
      // two platforms, in their own words.
      const r = await sb.run(['apps', 'create', ...E, '--platform', 'WINDOWS', '--name', 'win', '--json']);
      const h = await api('POST', '/environments/cli-env/apps', { platform: 'WINDOWS', name: 'win' });
      expect([r.code, JSON.parse(r.stderr)]).toEqual([64, { error: 'usage_error', message: "option '--platform <platform>' argument 'WINDOWS' is invalid. Allowed choices are IOS, ANDROID." }]);
      expect([h.status, h.body]).toEqual([400, { error: 'invalid_request', error_description: 'platform: must be one of ANDROID, IOS' }]);
    }
    await sameError(['apps', 'create', '--environment', 'nowhere', '--platform', 'IOS', '--name', 'x'], 'POST', '/environments/nowhere/apps', { platform: 'IOS', name: 'x' }, 404);
  });

  it('APNs credentials: the same metadata (fingerprint included) from either door, never the private key', async () => {
    secrets.push(apnsKey);
    const file = path.join(sb.dir, 'AuthKey.p8');
    writeFileSync(file, apnsKey);
    const E = ['--environment', 'cli-env'];
    const byCli = await ok(['apps', 'set-apns', 'ios-cli', ...E, '--key-file', file, '--key-id', 'ABC123DEFG', '--team-id', 'TEAM123456', '--topic', 'com.acme.shop']);
    const byApi = await api('PUT', '/environments/cli-env/apps/ios-api/credentials/apns', { keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.acme.shop', privateKey: apnsKey });
    expect(byApi.status).toBe(200);
    const volatile = ['appId', 'updatedAt', 'createdAt'];
    expect(without(byCli, ...volatile)).toEqual(without(byApi.body, ...volatile));
    const readCli = await ok(['apps', 'credentials', 'ios-api', ...E]);
    const readApi = (await api('GET', '/environments/cli-env/apps/ios-api/credentials')).body;
    expect(readCli).toEqual(readApi.items ?? readApi);
    const notAKey = path.join(sb.dir, 'not-a-key.p8');
    writeFileSync(notAKey, 'not a key');
    await sameError(['apps', 'set-apns', 'ios-cli', ...E, '--key-file', notAKey, '--key-id', 'ABC123DEFG', '--team-id', 'TEAM123456', '--topic', 'com.acme.shop'],
      'PUT', '/environments/cli-env/apps/ios-cli/credentials/apns', { keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.acme.shop', privateKey: 'not a key' }, 400);
    // A FCM credential on an IOS app: refused alike.
    const emptyAccount = path.join(sb.dir, 'sa.json');
    writeFileSync(emptyAccount, '{}');
    await sameError(['apps', 'set-fcm', 'ios-cli', ...E, '--service-account', emptyAccount], 'PUT', '/environments/cli-env/apps/ios-cli/credentials/fcm', { serviceAccount: {} }, 400);
    expect((await api('DELETE', '/environments/cli-env/apps/ios-api/credentials/apns')).status).toBe(204);
    await sameError(['apps', 'delete-credentials', 'ios-api', ...E, '--provider', 'apns'], 'DELETE', '/environments/cli-env/apps/ios-api/credentials/apns', undefined, 404);
  });

  it('access keys: created, rotated and revoked alike; the key shown once, by the door that made it', async () => {
    const E = ['--environment', 'cli-env'];
    const byCli = await ok(['access-keys', 'create', ...E, '--app', 'ios-cli', '--name', 'backend-cli', '--expires-at', '2099-01-01T00:00:00Z']);
    const byApi = await api('POST', '/environments/cli-env/access-keys', { apps: ['ios-cli'], name: 'backend-api', expiresAt: '2099-01-01T00:00:00Z' });
    expect(byApi.status).toBe(201);
    secrets.push(byCli.key, byApi.body.key);
    const volatile = ['id', 'name', 'key', 'keyHint', 'createdAt', 'updatedAt'];
    expect(without(byCli, ...volatile)).toEqual(without(byApi.body, ...volatile));
    expect((await api('GET', `/environments/cli-env/access-keys/${byCli.id}`)).body).toEqual(without(byCli, 'key'));
    expect(await ok(['access-keys', 'show', byApi.body.id, ...E])).toEqual(without(byApi.body, 'key'));

    const r1 = await ok(['access-keys', 'rotate', byCli.id, ...E, '--overlap', '24h']);
    const r2 = await api('POST', `/environments/cli-env/access-keys/${byApi.body.id}/rotation`, { overlapSeconds: 86400 });
    expect(r2.status).toBe(200);
    secrets.push(r1.key, r2.body.key);
    const rotated = [...volatile, 'previousExpiresAt', 'rotatedAt'];
    expect(without(r1, ...rotated)).toEqual(without(r2.body, ...rotated));

    await sameError(['access-keys', 'create', ...E, '--app', 'nope'], 'POST', '/environments/cli-env/access-keys', { apps: ['nope'] }, 404);
    await sameError(['access-keys', 'create', ...E, '--app', 'ios-cli', '--expires-at', '2001-01-01T00:00:00Z'], 'POST', '/environments/cli-env/access-keys', { apps: ['ios-cli'], expiresAt: '2001-01-01T00:00:00Z' }, 400);
    await sameError(['access-keys', 'show', byCli.id, '--environment', 'api-env'], 'GET', `/environments/api-env/access-keys/${byCli.id}`, undefined, 404);

    await ok(['access-keys', 'revoke', byApi.body.id, ...E]);
    expect((await api('DELETE', `/environments/cli-env/access-keys/${byCli.id}`)).status).toBe(204);
    const c = await ok(['access-keys', 'show', byCli.id, ...E]);
    const h = (await api('GET', `/environments/cli-env/access-keys/${byApi.body.id}`)).body;
    expect(without(c, ...volatile, 'revokedAt', 'previousExpiresAt', 'rotatedAt')).toEqual(without(h, ...volatile, 'revokedAt', 'previousExpiresAt', 'rotatedAt'));
    await sameError(['access-keys', 'rotate', byCli.id, ...E], 'POST', `/environments/cli-env/access-keys/${byApi.body.id}/rotation`, {}, 409);
  });

  it('templates and previews: the same template, versions and rendering from either door', async () => {
    const E = ['--environment', 'cli-env'];
    const file = path.join(sb.dir, 'hello.json');
    writeFileSync(file, JSON.stringify(TEMPLATE));
    // The same app name in the other environment, so the one template file fits both.
    expect((await api('POST', '/environments/api-env/apps', { platform: 'IOS', name: 'ios-cli' })).status).toBe(201);
    const byCli = await ok(['templates', 'create', ...E, '--file', file]);
    const byApi = await api('POST', '/environments/api-env/templates', TEMPLATE);
    expect(byApi.status).toBe(201);
    const volatile = ['id', 'environmentId', 'createdAt', 'updatedAt'];
    expect(without(byCli, ...volatile)).toEqual(without(byApi.body, ...volatile));
    await sameError(['templates', 'create', ...E, '--file', file], 'POST', '/environments/cli-env/templates', TEMPLATE, 409);

    await ok(['templates', 'publish', 'hello', ...E]);
    expect((await api('POST', '/environments/api-env/templates/hello/publish')).status).toBe(200);
    const shownCli = await ok(['templates', 'show', 'hello', '--environment', 'api-env']);
    const shownApi = (await api('GET', '/environments/cli-env/templates/hello')).body;
    // appIds: each environment's own app named ios-cli.
    const def = (d: Json) => (d ? without(d, 'appIds') : d);
    const strip = (t: Json) => ({
      ...without(t, ...volatile, 'versions', 'publishedAt'), draft: def(t.draft), published: def(t.published),
      versions: t.versions?.map((v: Json) => without(v, 'createdAt', 'publishedAt', 'id')),
    });
    expect(strip(shownCli)).toEqual(strip(shownApi));

    const p1 = await ok(['templates', 'preview', 'hello', ...E, '--variables', '{"name":"Ada"}']);
    const p2 = await api('POST', '/environments/cli-env/templates/hello/preview', { variables: { name: 'Ada' } });
    expect(p2.status).toBe(200);
    expect(p1).toEqual(p2.body);
    await sameError(['templates', 'preview', 'hello', ...E, '--variables', '{}'], 'POST', '/environments/cli-env/templates/hello/preview', { variables: {} }, 400);
    await sameError(['templates', 'show', 'nope', ...E], 'GET', '/environments/cli-env/templates/nope', undefined, 404);
  });

  it('test groups: created, renamed and deleted alike; each door reads the other’s', async () => {
    const E = ['--environment', 'cli-env'];
    const byCli = await ok(['test-groups', 'create', ...E, '--name', 'team-cli', '--external-id', 'alice@example.com']);
    const byApi = await api('POST', '/environments/cli-env/test-groups', { name: 'team-api', members: [{ externalId: 'alice@example.com' }] });
    expect(byApi.status).toBe(201);
    const volatile = ['id', 'name', 'createdAt', 'updatedAt'];
    expect(without(byCli, ...volatile)).toEqual(without(byApi.body, ...volatile));
    expect((await api('GET', '/environments/cli-env/test-groups/team-cli')).body).toEqual(byCli);
    expect(await ok(['test-groups', 'show', 'team-api', ...E])).toEqual(byApi.body);
    await sameError(['test-groups', 'create', ...E, '--name', 'team-api'], 'POST', '/environments/cli-env/test-groups', { name: 'team-api', members: [] }, 409);
    await sameError(['test-groups', 'create', ...E, '--name', 'ghosts', '--installation', '00000000-0000-4000-8000-000000000000'],
      'POST', '/environments/cli-env/test-groups', { name: 'ghosts', members: [{ installationId: '00000000-0000-4000-8000-000000000000' }] }, 400);
    const u1 = await ok(['test-groups', 'update', 'team-cli', ...E, '--name', 'qa-cli', '--clear']);
    const u2 = await api('PATCH', '/environments/cli-env/test-groups/team-api', { name: 'qa-api', members: [] });
    expect(without(u1, ...volatile)).toEqual(without(u2.body, ...volatile));
    await ok(['test-groups', 'delete', 'qa-api', ...E]);
    expect((await api('DELETE', '/environments/cli-env/test-groups/qa-cli')).status).toBe(204);
    await sameError(['test-groups', 'show', 'qa-cli', ...E], 'GET', '/environments/cli-env/test-groups/qa-api', undefined, 404);
  });

  it('objects declared by engage apply: the same 409 configuration_managed from either door', async () => {
    const file = path.join(sb.dir, 'engage.json');
    writeFileSync(file, JSON.stringify({ version: 1, environments: [{ name: 'managed', apps: [{ name: 'm-ios', platform: 'IOS' }] }] }));
    await sb.cli(['apply', '-f', file]);
    await sameError(['environments', 'update', 'managed', '--display-name', 'x'], 'PUT', '/environments/managed', { displayName: 'x' }, 409);
    await sameError(['apps', 'disable', 'm-ios', '--environment', 'managed'], 'PATCH', '/environments/managed/apps/m-ios', { status: 'DISABLED' }, 409);
  });

  it('inspection: installations, profiles, test sends and the overview read the same through both doors', async () => {
    const E = ['--environment', 'cli-env'];
    const { appKey } = await ok(['apps', 'show', 'ios-cli', ...E]);
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${server.url}/v1/sdk/installations`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey },
        body: JSON.stringify({ platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
      });
      expect(res.status).toBe(201);
      installations.push(((await res.json()) as { installationId: string }).installationId);
    }
    installations.sort();
    const page = await ok(['installations', 'list', ...E, '--size', '2']);
    expect((await api('GET', '/environments/cli-env/installations?size=2')).body).toEqual(page);
    expect(await ok(['installations', 'list', ...E, '--size', '2', '--after', page.next])).toEqual((await api('GET', `/environments/cli-env/installations?size=2&after=${page.next}`)).body);
    const shown = await ok(['installations', 'show', installations[0], ...E]);
    // The CLI adds the push token's masked tail (docs/decisions.md), null here: no token yet.
    expect(shown.pushToken).toBeNull();
    expect((await api('GET', `/environments/cli-env/installations/${installations[0]}`)).body).toEqual(without(shown, 'pushToken'));
    expect(await ok(['profiles', 'show', ...E, '--id', shown.profileId])).toEqual((await api('GET', `/environments/cli-env/profiles/${shown.profileId}`)).body);
    await sameError(['installations', 'show', installations[0], '--environment', 'api-env'], 'GET', `/environments/api-env/installations/${installations[0]}`, undefined, 404);
    await sameError(['profiles', 'show', ...E, '--external-id', 'nobody'], 'GET', '/environments/cli-env/profiles/external/nobody', undefined, 404);

    // A test send through each door to a group of two installations.
    await ok(['test-groups', 'create', ...E, '--name', 'devices', '--installation', installations[0], '--installation', installations[1]]);
    const s1 = await ok(['sends', 'test', ...E, '--template', 'hello', '--test-group', 'devices', '--variables', '{"name":"Ada"}']);
    const s2 = await api('POST', '/environments/cli-env/test-sends', { template: 'hello', testGroup: 'devices', variables: { name: 'Ada' } });
    expect(s2.status).toBe(202);
    const sendVolatile = ['requestId', 'sendId', 'id', 'idempotencyKey', 'createdAt', 'acceptedAt'];
    expect(without(s1, ...sendVolatile)).toEqual(without(s2.body, ...sendVolatile));
    const sendId = s1.requestId ?? s1.sendId ?? s1.id;
    {
      // `engage sends show` (issue 22) prints the stored send: its request and established
      // response; GET …/sends/{id} (issue 24) the inspection view. The fields they share agree.
      const c = await ok(['sends', 'show', sendId]);
      const h = (await api('GET', `/environments/cli-env/sends/${sendId}`)).body;
      const shared = Object.keys(h).filter((k) => k in c);
      expect(shared).toEqual(expect.arrayContaining(['id', 'isTest', 'recipient', 'deliveries', 'createdAt']));
      expect(Object.fromEntries(shared.map((k) => [k, c[k]]))).toEqual(Object.fromEntries(shared.map((k) => [k, h[k]])));
    }
    await sameError(['sends', 'test', ...E, '--template', 'hello', '--test-group', 'nope', '--variables', '{"name":"Ada"}'],
      'POST', '/environments/cli-env/test-sends', { template: 'hello', testGroup: 'nope', variables: { name: 'Ada' } }, 404);

    const o1 = await ok(['environments', 'overview', 'cli-env']);
    const o2 = (await api('GET', '/environments/cli-env/overview')).body;
    expect(without(o1, 'at', 'perMinute')).toEqual(without(o2, 'at', 'perMinute'));
    // Per minute (issue 25): the same 60 minutes, or, when a minute began between the two reads, the same 59 they share.
    for (const series of ['operations', 'deliveries']) {
      const [c, h] = [(o1.perMinute as Json)[series] as Json[], (o2.perMinute as Json)[series] as Json[]];
      expect([c.length, h.length]).toEqual([60, 60]);
      const shift = h.findIndex((m) => m.minute === c.at(-1)!.minute) === 58 ? 1 : 0;
      expect(c.slice(shift)).toEqual(h.slice(0, 60 - shift));
    }
  });

  it('erasure: an installation and a profile erased through either door are gone for both, with the same 404 after', async () => {
    const E = ['--environment', 'cli-env'];
    expect(await ok(['installations', 'erase', installations[0], ...E])).toMatchObject({ erased: 'installation', id: installations[0] });
    expect((await api('DELETE', `/environments/cli-env/installations/${installations[1]}`)).status).toBe(204);
    for (const id of installations.slice(0, 2)) {
      await sameError(['installations', 'show', id, ...E], 'GET', `/environments/cli-env/installations/${id}`, undefined, 404);
      await sameError(['installations', 'erase', id, ...E], 'DELETE', `/environments/cli-env/installations/${id}`, undefined, 404);
    }
    const p2 = (await ok(['installations', 'show', installations[2], ...E])).profileId;
    const p3 = (await ok(['installations', 'show', installations[3], ...E])).profileId;
    expect(await ok(['profiles', 'erase', ...E, '--id', p2])).toMatchObject({ erased: 'profile', installations: 1 });
    expect((await api('DELETE', `/environments/cli-env/profiles/${p3}`)).status).toBe(204);
    for (const id of [p2, p3]) await sameError(['profiles', 'erase', ...E, '--id', id], 'DELETE', `/environments/cli-env/profiles/${id}`, undefined, 404);
    const left = await ok(['installations', 'list', ...E]);
    expect(left).toEqual((await api('GET', '/environments/cli-env/installations')).body);
    expect(left.items).toEqual([]);
  });

  it('environment deletion: DELETING alike, then, once erased, the same 404 from both doors', async () => {
    await ok(['environments', 'create', '--name', 'doomed-cli']);
    expect((await api('POST', '/environments', { name: 'doomed-api' })).status).toBe(201);
    const d1 = await ok(['environments', 'delete', 'doomed-cli', '--no-wait']);
    const d2 = await api('DELETE', '/environments/doomed-api');
    expect(d2.status).toBe(202);
    expect(without(d1, 'id', 'name', 'displayName', 'createdAt')).toEqual(without(d2.body, 'id', 'name', 'displayName', 'createdAt'));
    // The server's erasure job takes both; once done, each door answers the same 404 for both.
    for (let waited = 0; (await api('GET', '/environments/doomed-cli')).status !== 404 || (await api('GET', '/environments/doomed-api')).status !== 404; waited += 200) {
      expect(waited).toBeLessThan(30_000);
      await new Promise((r) => setTimeout(r, 200));
    }
    await sameError(['environments', 'show', 'doomed-api'], 'GET', '/environments/doomed-cli', undefined, 404);
    await sameError(['environments', 'delete', 'doomed-cli', '--no-wait'], 'DELETE', '/environments/doomed-api', undefined, 404);
  });

  it('lists: apps, access keys (never a key), credentials, templates and test groups list the same through both doors', async () => {
    const E = ['--environment', 'cli-env'];
    const items = (x: Json) => (Array.isArray(x) ? x : x.items);
    for (const [args, route] of [
      [['apps', 'list', ...E], '/environments/cli-env/apps'],
      [['access-keys', 'list', ...E], '/environments/cli-env/access-keys'],
      [['templates', 'list', ...E], '/environments/cli-env/templates'],
      [['test-groups', 'list', ...E], '/environments/cli-env/test-groups'],
      [['environments', 'list'], '/environments'],
    ] as [string[], string][]) {
      const c = await ok(args);
      const h = await api('GET', route);
      expect(h.status).toBe(200);
      expect(items(c), args.join(' ')).toEqual(items(h.body));
      expect(items(c).length, args.join(' ')).toBeGreaterThan(0);
    }
    expect(items(await ok(['access-keys', 'list', ...E])).every((k: Json) => !('key' in k))).toBe(true);
  });

  it('audit: the same events through both doors; CLI changes as os:<user>, HTTP ones as the operator, each with its environment; no secret anywhere but once', async () => {
    const c = await ok(['audit', 'list', '--environment', 'cli-env', '--size', '200']);
    const h = (await api('GET', '/environments/cli-env/audit-events?size=200')).body;
    expect(c.items).toEqual(h.items);
    const events: Json[] = c.items;
    const byActor = (a: string) => events.filter((e) => e.actorSubject === a).map((e) => e.action);
    for (const a of ['environment.created', 'environment.updated', 'environment.disabled', 'app.created', 'app.updated', 'app.disabled', 'push_credentials.set', 'access_key.created', 'access_key.rotated', 'access_key.revoked', 'template.created', 'template.published', 'test_group.created', 'test_group.updated', 'test_group.deleted', 'template.test_sent', 'installation.erased', 'profile.erased']) {
      expect(byActor(osActor), a).toContain(a);
    }
    for (const a of ['environment.enabled', 'app.created', 'push_credentials.set', 'push_credentials.deleted', 'access_key.created', 'access_key.rotated', 'access_key.revoked', 'test_group.created', 'test_group.deleted', 'template.test_sent', 'installation.erased', 'profile.erased']) {
      expect(byActor(subject), a).toContain(a);
    }
    expect(events.every((e) => e.environmentId === c.items[0].environmentId && (e.actorSubject === osActor || e.actorSubject === subject))).toBe(true);
    expect(events.filter((e) => e.actorSubject === osActor).every((e) => e.actorClientId === null)).toBe(true);
    expect(events.filter((e) => e.actorSubject === subject).every((e) => e.actorClientId === 'engage-cli')).toBe(true);

    const trail = JSON.stringify(events) + JSON.stringify((await api('GET', '/environments/api-env/audit-events?size=200')).body);
    const log = server.output();
    for (const s of secrets) {
      expect(trail).not.toContain(s);
      expect(log).not.toContain(s);
    }
    // Each access key was printed once, when made (token and the provider key never).
    for (const s of secrets.slice(2)) expect(printed.filter((p) => p.includes(s))).toHaveLength(1);
    expect(printed.some((p) => p.includes(apnsKey.split('\n')[1]))).toBe(false);
  });
});
