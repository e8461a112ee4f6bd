import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, itSqlite, type Harness } from '../../../test/helpers/harness';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { bearer, bind, bootstrap, ingest, issueCode, json, op, setupEnvironment } from '../../../test/fixtures/engage';
import { digest } from '../../platform/crypto';
import { ACTOR } from '../../../test/fixtures/actor';
import { createFixture } from '../../../test/fixtures/oauth';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import type { Sql } from '../../platform/store/sql';
import { createOperationOverviewStore } from '../operations/overview-store';
import { createMessagingOverviewStore } from '../messaging/overview-store';

/**
 * Environments over the engagement administration API (issue 24 point 1): create, update
 * (display name, identity tenant, status), delete (a durable job), overview; each route's
 * status table, the state afterwards, the edge refusing a disabled or deleting environment.
 */
let h: Harness;
let a: EngageAdminFixture;
const { read, manage, send } = ENGAGE_ADMIN_API.scopes;
let tokens: { manage: string; read: string; send: string; prodManager: string; prodReader: string; nobody: string };

beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  await setupEnvironment(h, 'prod');
  await setupEnvironment(h, 'staging');
  const prodManager = await a.newOperator('prod-manager@example.com', [`${manage}:prod`]);
  const prodReader = await a.newOperator('prod-reader@example.com', [`${read}:prod`]);
  const nobody = await a.newOperator('nobody@example.com');
  tokens = {
    manage: await a.token([manage]),
    read: await a.token([read]),
    send: await a.token([send]),
    prodManager: await a.token([manage], prodManager.id),
    prodReader: await a.token([read], prodReader.id),
    nobody: await a.token([manage], nobody.id),
  };
});
afterAll(() => h.close());

const answer = async (res: Response) => [res.status, await res.json()];
const auditOf = (action: string) =>
  h.sql.all<{ environmentId: string | null; details: string; actorSubject: string }>(
    'SELECT environment_id AS "environmentId", details, actor_subject AS "actorSubject" FROM audit_events WHERE action = ? ORDER BY created_at, id',
    [action],
  );

describe('POST /environments', () => {
  it.each([
    ['no token', () => undefined, 401, 'invalid_token'],
    ['a read token', () => tokens.read, 403, 'insufficient_scope'],
    ['a send token', () => tokens.send, 403, 'insufficient_scope'],
    ['manage narrowed to prod (creation needs the unscoped permission)', () => tokens.prodManager, 403, 'access_denied'],
    ['no permission at all', () => tokens.nobody, 403, 'access_denied'],
  ])('%s: answered, and nothing is created', async (_what, token, status, error) => {
    expect(await answer(await a.call('POST', '/environments', token(), { name: 'refused' }))).toEqual([status, { error }]);
    expect(await h.services.engage.environments.find('refused')).toBeUndefined();
  });

  it.each([
    ['a name that is no slug', { name: 'Prod Env' }, 'name'],
    ['a name starting with a hyphen', { name: '-prod' }, 'name'],
    ['a name too long', { name: 'a'.repeat(64) }, 'name'],
    ['an unknown field', { name: 'ok', region: 'eu' }, 'region'],
    ['a display name of spaces', { name: 'ok', displayName: '   ' }, 'displayName'],
    ['an identity tenant id that is no uuid', { name: 'ok', identityTenantId: 'acme' }, 'identityTenantId'],
    ['an identity tenant that does not exist', { name: 'ok', identityTenantId: randomUUID() }, 'identityTenantId'],
    // Paths name an environment by id first: a name in the form of a UUID could not be reached (an outside review).
    ['a name in the form of a UUID', { name: randomUUID() }, 'name'],
  ])('400 invalid_request for %s', async (_what, body, field) => {
    const res = await a.call('POST', '/environments', tokens.manage, body);
    expect(res.status).toBe(400);
    const b = (await res.json()) as { error: string; error_description?: string };
    expect(b.error).toBe('invalid_request');
    if (b.error_description) expect(b.error_description).toContain(field);
    expect(await h.services.engage.environments.find('ok')).toBeUndefined();
  });

  it('201 with the environment (display name, identity tenant), audited; 409 name_taken for a taken name', async () => {
    const acme = await createFixture(h, 'acme-env');
    const res = await a.call('POST', '/environments', tokens.manage, { name: 'eu-prod', displayName: 'Production (EU)', identityTenantId: acme.tenant.tenant.id });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = (await res.json()) as Record<string, unknown>;
    expect(created).toEqual({
      id: expect.any(String),
      name: 'eu-prod',
      displayName: 'Production (EU)',
      status: 'ACTIVE',
      identityTenantId: acme.tenant.tenant.id,
      configurationManaged: false,
      createdAt: expect.any(String),
    });
    expect(await answer(await a.call('GET', '/environments/eu-prod', tokens.read))).toEqual([200, created]);
    const events = await auditOf('environment.created');
    expect(events.at(-1)).toMatchObject({ environmentId: created.id, actorSubject: a.operator.subject });
    expect(await answer(await a.call('POST', '/environments', tokens.manage, { name: 'eu-prod' }))).toEqual([409, { error: 'name_taken' }]);
  });
});

describe('PUT /environments/{environmentId}', () => {
  it.each([
    ['no token', () => undefined, 'prod', 401, 'invalid_token'],
    ['a read token', () => tokens.read, 'prod', 403, 'insufficient_scope'],
    ['manage narrowed to prod, on staging', () => tokens.prodManager, 'staging', 403, 'access_denied'],
    ['read narrowed to prod (manage is needed)', () => tokens.prodReader, 'prod', 403, 'insufficient_scope'],
    ['no permission', () => tokens.nobody, 'prod', 403, 'access_denied'],
    ['an unknown environment (unscoped operator)', () => tokens.manage, 'nowhere', 404, 'unknown_environment'],
  ])('%s: %s', async (_what, token, env, status, error) => {
    expect(await answer(await a.call('PUT', `/environments/${env}`, token(), { displayName: 'x' }))).toEqual([status, { error }]);
  });

  it.each([
    ['a status DELETING (the DELETE route does that)', { status: 'DELETING' }],
    ['an unknown field', { name: 'renamed' }],
    ['a display name too long', { displayName: 'x'.repeat(101) }],
    ['an unknown identity tenant', { identityTenantId: randomUUID() }],
    ['a body that is no object', '[]'],
  ])('400 invalid_request for %s', async (_what, body) => {
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.manage, body))).toEqual([400, expect.objectContaining({ error: 'invalid_request' })]);
  });

  it('the identity tenant: only the unscoped permission sets it (403 narrowed), and never to the control tenant (400) (an outside review)', async () => {
    const acme = await h.services.tenants.create({ slug: 'link-target' }, ACTOR);
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.prodManager, { identityTenantId: acme.id }))).toEqual([403, { error: 'access_denied' }]);
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.prodManager, { identityTenantId: null }))).toEqual([403, { error: 'access_denied' }]);
    const control = (await h.services.tenants.control())!;
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.manage, { identityTenantId: control.id }))).toEqual([400, expect.objectContaining({ error: 'invalid_request' })]);
    expect((await h.services.engage.environments.find('prod'))?.identityTenantId ?? null).toBeNull();
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.manage, { identityTenantId: acme.id }))).toEqual([200, expect.objectContaining({ identityTenantId: acme.id })]);
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.manage, { identityTenantId: null }))).toEqual([200, expect.objectContaining({ identityTenantId: null })]);
  });

  it('200: an operator narrowed to prod changes prod; null clears; each change audited with the environment, a change to nothing records nothing', async () => {
    const prod = (await h.services.engage.environments.find('prod'))!;
    const before = (await auditOf('environment.updated')).length;
    const res = await a.call('PUT', '/environments/prod', tokens.prodManager, { displayName: 'Production' });
    expect(await answer(res)).toEqual([200, expect.objectContaining({ name: 'prod', displayName: 'Production', status: 'ACTIVE' })]);
    expect((await h.services.engage.environments.find('prod'))?.displayName).toBe('Production');
    expect(await answer(await a.call('PUT', '/environments/prod', tokens.prodManager, { displayName: 'Production' }))).toEqual([200, expect.objectContaining({ displayName: 'Production' })]);
    expect(await answer(await a.call('PUT', `/environments/${prod.id}`, tokens.manage, { displayName: null }))).toEqual([200, expect.objectContaining({ displayName: 'prod' })]);
    const events = (await auditOf('environment.updated')).slice(before);
    expect(events.map((e) => [e.environmentId, JSON.parse(e.details).displayName])).toEqual([[prod.id, 'Production'], [prod.id, null]]);
  });

  it('a configuration-managed environment: 409 configuration_managed, unless the service is told allowManaged (engage apply)', async () => {
    const managed = await h.services.engage.environments.create({ name: 'managed' }, ACTOR);
    await h.sql.run('UPDATE environments SET configuration_managed = 1 WHERE id = ?', [managed.id]);
    expect(await answer(await a.call('PUT', '/environments/managed', tokens.manage, { displayName: 'x' }))).toEqual([409, { error: 'configuration_managed' }]);
    expect(await answer(await a.call('PUT', '/environments/managed', tokens.manage, { status: 'DISABLED' }))).toEqual([409, { error: 'configuration_managed' }]);
    expect(await answer(await a.call('DELETE', '/environments/managed', tokens.manage))).toEqual([409, { error: 'configuration_managed' }]);
    expect((await h.services.engage.environments.find('managed'))?.status).toBe('ACTIVE');
    const changed = await h.services.engage.environments.update('managed', { displayName: 'Declared' }, ACTOR, { allowManaged: true });
    expect(changed.displayName).toBe('Declared');
  });
});

describe('a DISABLED environment at the edge', () => {
  it('refuses its app key, installation credentials and access keys with 401, as a disabled app; enabled again, they work', async () => {
    const env = await setupEnvironment(h, 'edge');
    const s = await bootstrap(h, env.app.appKey);
    const probe = async () => [
      (await h.request('/v1/sdk/installations', json({ platform: 'IOS', locale: 'en-US', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }, { 'X-Service-App-Key': env.app.appKey }))).status,
      (await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).status,
      (await h.request(`/api/v1/environments/${env.environment.id}/transactional/unknown-template/send`, json({ recipient: { type: 'INSTALLATION', value: s.installationId } }, { ...bearer(env.accessKey), 'Idempotency-Key': randomUUID() }))).status,
    ];
    const [bootstrapOk, stateOk, sendBefore] = await probe();
    expect([bootstrapOk, stateOk]).toEqual([201, 200]);
    expect(sendBefore).not.toBe(401);
    const disabled = await a.call('PUT', '/environments/edge', tokens.manage, { status: 'DISABLED' });
    expect(await answer(disabled)).toEqual([200, expect.objectContaining({ status: 'DISABLED' })]);
    expect(await probe()).toEqual([401, 401, 401]);
    const refused = await h.request('/v1/sdk/installation', { headers: bearer(s.credential) });
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(((await refused.json()) as { code: string }).code).toBe('unauthorized');
    // The administration API still reads it.
    expect(await answer(await a.call('GET', '/environments/edge', tokens.read))).toEqual([200, expect.objectContaining({ status: 'DISABLED' })]);
    expect((await auditOf('environment.disabled')).at(-1)?.environmentId).toBe(env.environment.id);
    await a.call('PUT', '/environments/edge', tokens.manage, { status: 'ACTIVE' });
    const [b, st, sn] = await probe();
    expect([b, st]).toEqual([201, 200]);
    expect(sn).toBe(sendBefore);
    expect((await auditOf('environment.enabled')).at(-1)?.environmentId).toBe(env.environment.id);
  });
});

describe('a DISABLED environment and sign-in binding', () => {
  it('a sign-in through its identity tenant does not bind its installation (NOT_BOUND, the sign-in goes on); enabled again, it binds', async () => {
    const tenant = await createFixture(h, 'signin-env');
    const env = await setupEnvironment(h, 'signin');
    const linked = await a.call('PUT', '/environments/signin', tokens.manage, { identityTenantId: tenant.tenant.tenant.id });
    expect(await answer(linked)).toEqual([200, expect.objectContaining({ identityTenantId: tenant.tenant.tenant.id })]);
    // Audited as every identity tenant change is (docs/sign-in-binding.md), with the previous value.
    const link = (await auditOf('environment.identity_tenant.changed')).at(-1)!;
    expect([link.environmentId, JSON.parse(link.details)]).toEqual([env.environment.id, { environmentId: env.environment.id, identityTenantId: tenant.tenant.tenant.id, previous: null }]);
    const s = await bootstrap(h, env.app.appKey);
    const code = await issueCode(h, s);
    await a.call('PUT', '/environments/signin', tokens.manage, { status: 'DISABLED' });
    const signIn = (grantId: string) =>
      h.services.engage.binding.bindOnSignIn({ tenantId: tenant.tenant.tenant.id, subject: tenant.subject, bindingCodeDigest: digest(code), grantId });
    expect(await signIn(randomUUID())).toEqual({ status: 'NOT_BOUND', reason: 'unknown_code' });
    await a.call('PUT', '/environments/signin', tokens.manage, { status: 'ACTIVE' });
    expect(await signIn(randomUUID())).toMatchObject({ status: 'BOUND', installation_id: s.installationId });
  });
});

describe('GET /environments/{environmentId}/overview', () => {
  it.each([
    ['no token', () => undefined, 'prod', 401, 'invalid_token'],
    ['a send token', () => tokens.send, 'prod', 403, 'insufficient_scope'],
    ['read narrowed to prod, on staging', () => tokens.prodReader, 'staging', 403, 'access_denied'],
    ['an unknown environment', () => tokens.read, 'nowhere', 404, 'unknown_environment'],
  ])('%s: %s', async (_what, token, env, status, error) => {
    expect(await answer(await a.call('GET', `/environments/${env}/overview`, token()))).toEqual([status, { error }]);
  });

  it('counts installations, bound ones, push-ready per app; operations, sends and deliveries of the last hour and day, test sends left out', async () => {
    const env = await setupEnvironment(h, 'counted');
    const android = await h.services.engage.environments.createApp({ environment: env.environment.id, platform: 'ANDROID', name: 'counted-android' }, ACTOR);
    const [ready, bound, tokenless] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    const droid = await bootstrap(h, android.appKey, { platform: 'ANDROID' });
    await bind(h, env.accessKey, bound, 'customer-1');
    const pushable = (generation: number) => [
      op('PUSH_TOKEN_SET', { token: 'a'.repeat(64) }, { generation }),
      op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }, { generation }),
    ];
    await ingest(h, ready, pushable(0));
    await ingest(h, bound, pushable(1));
    await ingest(h, tokenless, [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }, { generation: 0 })]);
    // Android shows a push before the permission is asked: a token is enough.
    await ingest(h, droid, [op('PUSH_TOKEN_SET', { token: 'f'.repeat(40) }, { generation: 0 })]);
    const opsBefore = (await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM operations WHERE environment_id = ?', [env.environment.id]))!.n;
    // Two sends now (one a test send) and one two hours ago, each with deliveries.
    const nowMs = h.clock.now().getTime();
    const sendRow = async (isTest: number, createdMs: number, states: string[]) => {
      const id = randomUUID();
      await h.sql.run(
        `INSERT INTO push_sends (id, environment_id, template_id, template_version, idempotency_key, request_hash, access_key_id, recipient_type, recipient_value, response, created_at, created_ms, is_test)
         VALUES (?, ?, 't', 1, ?, 'h', ?, 'INSTALLATION', 'x', '{}', 'x', ?, ?)`,
        [id, env.environment.id, randomUUID(), env.accessKeyId, createdMs, isTest],
      );
      for (const state of states)
        await h.sql.run(
          `INSERT INTO push_deliveries (id, send_id, environment_id, template_id, installation_id, app_id, provider, token, content_hash, message, state,
            attempts, next_attempt_ms, expires_ms, created_ms, created_at, updated_at) VALUES (?, ?, ?, 't', ?, ?, 'APNS', 'tok', 'h', '{}', ?, 1, 0, 0, ?, 'x', 'x')`,
          [randomUUID(), id, env.environment.id, ready.installationId, env.app.id, state, createdMs],
        );
    };
    await sendRow(0, nowMs - 60_000, ['SENT', 'DELIVERED']);
    await sendRow(1, nowMs - 60_000, ['SENT', 'SENT', 'SENT']);
    await sendRow(0, nowMs - 2 * 3_600_000, ['FAILED']);

    const res = await a.call('GET', '/environments/counted/overview', tokens.read);
    expect(res.status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
    const o = (await res.json()) as Record<string, any>;
    expect(o.environmentId).toBe(env.environment.id);
    expect(o.installations.total).toBe(4);
    expect(o.installations.bound).toBe(1);
    // Apps in the order they were created (here at the same instant: by id).
    expect(o.installations.apps).toHaveLength(2);
    expect(o.installations.apps).toEqual(expect.arrayContaining([
      { appId: env.app.id, name: 'counted-ios', platform: 'IOS', status: 'ACTIVE', installations: 3, pushReady: 2 },
      { appId: android.id, name: 'counted-android', platform: 'ANDROID', status: 'ACTIVE', installations: 1, pushReady: 1 },
    ]));
    expect(o.lastHour.operations).toEqual({ accepted: Number(opsBefore), rejected: 0 });
    expect(o.lastHour.sends).toBe(1);
    expect(o.lastHour.deliveries).toEqual({ PENDING: 0, SENT: 1, DELIVERED: 1, OPENED: 0, FAILED: 0, EXPIRED: 0 });
    expect(o.lastDay.sends).toBe(2);
    expect(o.lastDay.deliveries).toEqual({ PENDING: 0, SENT: 1, DELIVERED: 1, OPENED: 0, FAILED: 1, EXPIRED: 0 });
    // A disabled app has no push-ready installation.
    await h.services.engage.environments.disableApp(android.id, 'counted', ACTOR);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
    const after = (await (await a.call('GET', '/environments/counted/overview', tokens.read)).json()) as Record<string, any>;
    expect(after.installations.apps.find((x: { appId: string }) => x.appId === android.id)).toMatchObject({ status: 'DISABLED', installations: 1, pushReady: 0 });
    // An operator narrowed to prod reads prod's.
    expect((await a.call('GET', '/environments/prod/overview', tokens.prodReader)).status).toBe(200);
  });

  it('per minute: the last 60 minutes oldest first, every minute present; counts in their minute, the 60-minute edge, test sends and other environments left out', async () => {
    const env = await setupEnvironment(h, 'minutes');
    const other = await setupEnvironment(h, 'minutes-other');
    const envId = env.environment.id;
    const opsOf = async (environmentId: string) =>
      Number((await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM operations WHERE environment_id = ?', [environmentId]))!.n);
    const opRow = (environmentId: string, status: 'ACCEPTED' | 'REJECTED', receivedMs: number) =>
      h.sql.run(
        `INSERT INTO operations (installation_id, operation_id, environment_id, generation, type, status, received_ms) VALUES (?, ?, ?, 0, 'ATTRIBUTE_SET', ?, ?)`,
        [randomUUID(), randomUUID(), environmentId, status, receivedMs],
      );
    const sendRow = async (environmentId: string, accessKeyId: string, appId: string, isTest: number, createdMs: number, states: string[]) => {
      const id = randomUUID();
      await h.sql.run(
        `INSERT INTO push_sends (id, environment_id, template_id, template_version, idempotency_key, request_hash, access_key_id, recipient_type, recipient_value, response, created_at, created_ms, is_test)
         VALUES (?, ?, 't', 1, ?, 'h', ?, 'INSTALLATION', 'x', '{}', 'x', ?, ?)`,
        [id, environmentId, randomUUID(), accessKeyId, createdMs, isTest],
      );
      for (const state of states)
        await h.sql.run(
          `INSERT INTO push_deliveries (id, send_id, environment_id, template_id, installation_id, app_id, provider, token, content_hash, message, state,
            attempts, next_attempt_ms, expires_ms, created_ms, created_at, updated_at) VALUES (?, ?, ?, 't', ?, ?, 'APNS', 'tok', 'h', '{}', ?, 1, 0, 0, ?, 'x', 'x')`,
          [randomUUID(), id, environmentId, randomUUID(), appId, state, createdMs],
        );
    };
    const iso = (minute: number) => new Date(minute * 60_000).toISOString();

    // Into the middle of a minute, then activity through the SDK in it and in the next one.
    h.clock.advance(60 - ((h.clock.now().getTime() / 1000) % 60) + 20);
    const minuteA = Math.floor(h.clock.now().getTime() / 60_000);
    const s = await bootstrap(h, env.app.appKey);
    await ingest(h, s, [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_PERMISSION_SET', { state: 'DENIED' })]);
    const inA = await opsOf(envId);
    expect(inA).toBeGreaterThan(0);
    h.clock.advance(60);
    const current = Math.floor(h.clock.now().getTime() / 60_000);
    expect(current).toBe(minuteA + 1);
    await ingest(h, s, [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' })]);
    const inCurrent = (await opsOf(envId)) - inA;
    expect(inCurrent).toBeGreaterThan(0);
    // The edge: the first minute starts 59 minutes before the current one; a millisecond earlier is outside.
    const first = current - 59;
    await opRow(envId, 'REJECTED', first * 60_000);
    await opRow(envId, 'REJECTED', first * 60_000 - 1);
    // Another environment's operations in the current minute.
    await ingest(h, await bootstrap(h, other.app.appKey), [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' })]);
    await opRow(other.environment.id, 'REJECTED', current * 60_000);
    // Deliveries: a send in the current minute, a test send beside it, one at the edge and one before it, another environment's.
    const nowMs = h.clock.now().getTime();
    await sendRow(envId, env.accessKeyId, env.app.id, 0, nowMs, ['SENT', 'DELIVERED', 'DELIVERED']);
    await sendRow(envId, env.accessKeyId, env.app.id, 1, nowMs, ['SENT', 'SENT', 'FAILED']);
    await sendRow(envId, env.accessKeyId, env.app.id, 0, first * 60_000, ['FAILED']);
    await sendRow(envId, env.accessKeyId, env.app.id, 0, first * 60_000 - 1, ['EXPIRED']);
    await sendRow(other.environment.id, other.accessKeyId, other.app.id, 0, nowMs, ['OPENED']);

    const res = await a.call('GET', '/environments/minutes/overview', tokens.read);
    expect(res.status).toBe(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
    const o = (await res.json()) as Record<string, any>;
    const { operations, deliveries } = o.perMinute as { operations: Record<string, unknown>[]; deliveries: Record<string, unknown>[] };
    expect(operations.map((m) => m.minute)).toEqual(Array.from({ length: 60 }, (_, i) => iso(first + i)));
    expect(deliveries.map((m) => m.minute)).toEqual(Array.from({ length: 60 }, (_, i) => iso(first + i)));
    const zeroOps = { accepted: 0, rejected: 0 };
    const zeroDeliveries = { PENDING: 0, SENT: 0, DELIVERED: 0, OPENED: 0, FAILED: 0, EXPIRED: 0 };
    expect(operations).toEqual(
      Array.from({ length: 60 }, (_, i) => {
        const m = first + i;
        if (m === first) return { minute: iso(m), accepted: 0, rejected: 1 };
        if (m === minuteA) return { minute: iso(m), accepted: inA, rejected: 0 };
        if (m === current) return { minute: iso(m), accepted: inCurrent, rejected: 0 };
        return { minute: iso(m), ...zeroOps };
      }),
    );
    expect(deliveries).toEqual(
      Array.from({ length: 60 }, (_, i) => {
        const m = first + i;
        if (m === first) return { minute: iso(m), ...zeroDeliveries, FAILED: 1 };
        if (m === current) return { minute: iso(m), ...zeroDeliveries, SENT: 1, DELIVERED: 2 };
        return { minute: iso(m), ...zeroDeliveries };
      }),
    );
    // An environment with no activity: 60 minutes of zeros.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
    const quiet = (await (await a.call('GET', '/environments/staging/overview', tokens.read)).json()) as Record<string, any>;
    expect(quiet.perMinute.operations.filter((m: { accepted: number; rejected: number }) => m.accepted + m.rejected > 0)).toEqual([]);
    expect(quiet.perMinute.deliveries).toHaveLength(60);
    expect(quiet.perMinute.deliveries.at(-1)).toEqual({ minute: iso(current), ...zeroDeliveries });
  });

  itSqlite("per minute: each source's query is one range of migration 0029's index, grouped (the owning stores' SQL, explained)", async () => {
    const plans: string[] = [];
    const explaining = { all: async (sql: string, params: unknown[]) => { plans.push((await h.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((p) => p.detail).join(' | ')); return []; } } as unknown as Sql;
    await createOperationOverviewStore(explaining).perMinute('e', 0, 60_000);
    await createMessagingOverviewStore(explaining).deliveriesPerMinute('e', 0, 60_000);
    expect(plans[0]).toMatch(/^SEARCH operations USING INDEX operations_environment_received \(environment_id=\? AND received_ms>\? AND received_ms<\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
    expect(plans[1]).toMatch(/^SEARCH d USING INDEX push_deliveries_environment_created \(environment_id=\? AND created_ms>\? AND created_ms<\?\) \| SEARCH s USING INDEX \S+ \(id=\?\) \| USE TEMP B-TREE FOR GROUP BY$/);
  });
});

describe('DELETE /environments/{environmentId}', () => {
  it.each([
    ['no token', () => undefined, 'prod', 401, 'invalid_token'],
    ['a read token', () => tokens.read, 'prod', 403, 'insufficient_scope'],
    ['manage narrowed to prod, on staging', () => tokens.prodManager, 'staging', 403, 'access_denied'],
    ['an unknown environment', () => tokens.manage, 'nowhere', 404, 'unknown_environment'],
  ])('%s: answered, and nothing is deleted', async (_what, token, env, status, error) => {
    expect(await answer(await a.call('DELETE', `/environments/${env}`, token()))).toEqual([status, { error }]);
    expect((await h.services.engage.environments.find('staging'))?.status).toBe('ACTIVE');
  });

  it('202 DELETING; reads answer DELETING, changes 409, the edge 401; the job erases it (then 404); another environment untouched', async () => {
    const doomed = await setupEnvironment(h, 'doomed');
    const s = await bootstrap(h, doomed.app.appKey);
    const prodBefore = await answer(await a.call('GET', '/environments/prod', tokens.read));
    const res = await a.call('DELETE', '/environments/doomed', tokens.manage);
    expect(await answer(res)).toEqual([202, expect.objectContaining({ id: doomed.environment.id, name: 'doomed', status: 'DELETING' })]);
    expect(await answer(await a.call('GET', '/environments/doomed', tokens.read))).toEqual([200, expect.objectContaining({ status: 'DELETING' })]);
    expect((await a.call('GET', '/environments/doomed/overview', tokens.read)).status).toBe(200);
    expect(await answer(await a.call('PUT', '/environments/doomed', tokens.manage, { displayName: 'x' }))).toEqual([409, { error: 'environment_deleting' }]);
    expect(await answer(await a.call('PUT', '/environments/doomed', tokens.manage, { status: 'ACTIVE' }))).toEqual([409, { error: 'environment_deleting' }]);
    expect(await answer(await a.call('DELETE', '/environments/doomed', tokens.manage))).toEqual([409, { error: 'environment_deleting' }]);
    expect((await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).status).toBe(401);
    expect((await auditOf('environment.deletion_started')).at(-1)).toMatchObject({ environmentId: doomed.environment.id, actorSubject: a.operator.subject });

    await h.services.work.runDue();
    expect(await answer(await a.call('GET', '/environments/doomed', tokens.manage))).toEqual([404, { error: 'unknown_environment' }]);
    expect(await h.sql.get('SELECT id FROM installations WHERE id = ?', [s.installationId])).toBeUndefined();
    expect((await auditOf('environment.deleted')).at(-1)).toMatchObject({ environmentId: doomed.environment.id, actorSubject: a.operator.subject });
    expect(await answer(await a.call('GET', '/environments/prod', tokens.read))).toEqual(prodBefore);
    // The name is free again.
    expect((await a.call('POST', '/environments', tokens.manage, { name: 'doomed' })).status).toBe(201);
  });
});
