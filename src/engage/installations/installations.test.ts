import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bootstrap, bootstrapBody, json, setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';

let h: Harness;
let appKey: string;
beforeEach(async () => {
  h = await createHarness();
  appKey = (await setupEnvironment(h)).app.appKey;
});
afterEach(() => h.close());

const post = (body: unknown, key: string | null = appKey) =>
  h.request('/v1/sdk/installations', json(body, key === null ? {} : { 'X-Service-App-Key': key }));

async function expectProblem(res: Response, status: number, code: string, field?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as { code: string; message: string };
  expect(Object.keys(body).sort()).toEqual(['code', 'message']);
  expect(body.code).toBe(code);
  if (field) expect(body.message.startsWith(`${field}: `)).toBe(true);
}

describe('POST /v1/sdk/installations', () => {
  it('creates an anonymous installation at generation 0 with three distinct credentials (201)', async () => {
    const res = await post(bootstrapBody({ appBuild: '77', deviceModel: 'iPhone15,2', osVersion: '17.4' }));
    expect(res.status).toBe(201);
    const s = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(s).sort()).toEqual(
      ['credential', 'generation', 'installationId', 'privacy', 'pushPermission', 'pushSubscription', 'recoveryToken', 'revocationCredential', 'serverTime'].sort(),
    );
    expect(s).toMatchObject({ generation: 0, privacy: 'OPTED_IN', pushSubscription: 'OPTED_IN', pushPermission: 'NOT_DETERMINED', serverTime: '2026-01-01T00:00:00.000Z' });
    expect(new Set([s.credential, s.revocationCredential, s.recoveryToken]).size).toBe(3);
    // 256-bit secrets, stored only as digests.
    for (const k of ['credential', 'revocationCredential', 'recoveryToken']) expect((s[k] as string).replace(/^svc_[a-z]+_/, '').length).toBe(43);
    const raw = await h.sql.get<Record<string, unknown>>('SELECT * FROM installations');
    expect(JSON.stringify(raw)).not.toContain(s.credential as string);
    expect(JSON.stringify(raw)).not.toContain(s.recoveryToken as string);
  });

  it('recovers with a valid recoveryToken (200): same installation, fresh credentials, the old ones dead', async () => {
    const first = await bootstrap(h, appKey);
    const res = await post(bootstrapBody({ recoveryToken: first.recoveryToken, appVersion: '3.0.0' }));
    expect(res.status).toBe(200);
    const second = (await res.json()) as typeof first;
    expect(second.installationId).toBe(first.installationId);
    for (const k of ['credential', 'revocationCredential', 'recoveryToken'] as const) expect(second[k]).not.toBe(first[k]);
    expect((await h.request('/v1/sdk/installation', { headers: bearer(first.credential) })).status).toBe(401);
    const state = await h.request('/v1/sdk/installation', { headers: bearer(second.credential) });
    expect(state.status).toBe(200);
    expect(state.headers.get('cache-control')).toBe('no-store');
    // The old recovery token no longer recovers anything: it makes a new installation.
    const third = await post(bootstrapBody({ recoveryToken: first.recoveryToken }));
    expect(third.status).toBe(201);
    expect(((await third.json()) as typeof first).installationId).not.toBe(first.installationId);
  });

  it('50 concurrent bootstraps (grouped into shared commits) each get their own working installation', async () => {
    const sessions = await Promise.all(Array.from({ length: 50 }, () => bootstrap(h, appKey)));
    expect(new Set(sessions.map((x) => x.installationId)).size).toBe(50);
    const states = await Promise.all(sessions.map((x) => h.request('/v1/sdk/installation', { headers: bearer(x.credential) })));
    expect(states.map((r) => r.status)).toEqual(Array(50).fill(200));
  });

  it('an unknown recoveryToken creates a new installation (201)', async () => {
    expect((await post(bootstrapBody({ recoveryToken: 'svc_rec_nothing' }))).status).toBe(201);
  });

  it.each([
    ['no header', null],
    ['not an app key', 'hello'],
    ['unknown app key', 'svc_app_unknown'],
  ])('401 Problem for %s', async (_n, key) => {
    await expectProblem(await post(bootstrapBody(), key), 401, 'unauthorized');
  });

  it('401 for a disabled app, and its installations stop authenticating', async () => {
    const s = await bootstrap(h, appKey);
    const app = (await h.services.engage.environments.appForKey(appKey))!;
    await h.services.engage.environments.disableApp(app.id, undefined, ACTOR);
    await expectProblem(await post(bootstrapBody()), 401, 'unauthorized');
    expect((await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).status).toBe(401);
  });

  it.each([
    ['platform', { platform: undefined }],
    ['platform', { platform: 'WINDOWS' }],
    ['platform', { platform: 'ANDROID' }],
    ['locale', { locale: undefined }],
    ['locale', { locale: 'x'.repeat(36) }],
    ['timezone', { timezone: 'x'.repeat(65) }],
    ['sdkVersion', { sdkVersion: 1 }],
    ['appVersion', { appVersion: undefined }],
    ['appBuild', { appBuild: 'x'.repeat(65) }],
    ['deviceModel', { deviceModel: 'x'.repeat(129) }],
    ['osVersion', { osVersion: 'x'.repeat(65) }],
    ['recoveryToken', { recoveryToken: 5 }],
    ['color', { color: 'red' }],
  ])('400 Problem naming %s', async (field, over) => {
    const body: Record<string, unknown> = bootstrapBody(over);
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete body[k];
    await expectProblem(await post(body), 400, 'invalid_request', field);
  });

  it('400 for a body that is not JSON', async () => {
    const res = await h.request('/v1/sdk/installations', { method: 'POST', headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey }, body: '{' });
    await expectProblem(res, 400, 'invalid_request', 'body');
  });
});

describe('GET /v1/sdk/installation', () => {
  it('returns exactly the InstallationState', async () => {
    const s = await bootstrap(h, appKey);
    const res = await h.request('/v1/sdk/installation', { headers: bearer(s.credential) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      installationId: s.installationId,
      generation: 0,
      bindingState: 'ANONYMOUS',
      privacy: 'OPTED_IN',
      pushSubscription: 'OPTED_IN',
      pushPermission: 'NOT_DETERMINED',
      bound: false,
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('accepts only the installation credential', async () => {
    const s = await bootstrap(h, appKey);
    for (const token of [s.revocationCredential, s.recoveryToken, appKey, s.credential + 'x', 'garbage']) {
      await expectProblem(await h.request('/v1/sdk/installation', { headers: bearer(token) }), 401, 'unauthorized');
    }
    await expectProblem(await h.request('/v1/sdk/installation'), 401, 'unauthorized');
  });

  it('unknown routes under /v1 answer in the problem family', async () => {
    await expectProblem(await h.request('/v1/sdk/nothing'), 404, 'not_found');
  });
});
