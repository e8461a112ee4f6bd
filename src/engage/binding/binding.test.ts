import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bootstrap, issueCode, json, setupEnvironment, transition, type Session } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';

let h: Harness;
let accessKey: string;
let s: Session;
beforeEach(async () => {
  h = await createHarness({ bindingCodeTtl: 300 });
  const env = await setupEnvironment(h);
  accessKey = env.accessKey;
  s = await bootstrap(h, env.app.appKey);
});
afterEach(() => h.close());

const codeRequest = () => h.request('/v1/sdk/installation/binding-code', { method: 'POST', headers: bearer(s.credential) });
const state = async () => (await (await h.request('/v1/sdk/installation', { headers: bearer(s.credential) })).json()) as Record<string, unknown>;
const problem = async (res: Response) => {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  return ((await res.json()) as { code: string; message: string });
};

describe('POST /v1/sdk/installation/binding-code', () => {
  it('201 with a new code, then 200 with the same pending code; issuing changes no binding', async () => {
    const first = await codeRequest();
    expect(first.status).toBe(201);
    const a = (await first.json()) as { code: string; expiresAt: string };
    expect(a.expiresAt).toBe('2026-01-01T00:05:00.000Z');
    const second = await codeRequest();
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual(a);
    expect(await state()).toMatchObject({ generation: 0, bindingState: 'ANONYMOUS' });
  });

  it('after expiry a new code is issued (201)', async () => {
    const a = await issueCode(h, s);
    h.clock.advance(301);
    const res = await codeRequest();
    expect(res.status).toBe(201);
    expect(((await res.json()) as { code: string }).code).not.toBe(a);
  });

  it('50 concurrent requests agree on one pending code', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => codeRequest()));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(49);
    const codes = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as { code: string }).code)));
    expect(codes.size).toBe(1);
  });

  it('401 without the installation credential', async () => {
    const res = await h.request('/v1/sdk/installation/binding-code', { method: 'POST', headers: bearer(s.revocationCredential) });
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/installation-binding-transitions', () => {
  it('binds to an external id (201), replays (200), and advances the generation each commit', async () => {
    const code = await issueCode(h, s);
    const key = randomUUID();
    const res = await transition(h, accessKey, code, { externalId: 'user-1' }, key);
    expect(res.status).toBe(201);
    const t = (await res.json()) as Record<string, unknown>;
    expect(t).toEqual({ transitionId: expect.any(String), installationId: s.installationId, generation: 1, state: 'BOUND', committedAt: '2026-01-01T00:00:00.000Z' });
    const replay = await transition(h, accessKey, code, { externalId: 'user-1' }, key);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual(t);
    expect(await state()).toMatchObject({ generation: 1, bindingState: 'BOUND', bound: true });

    const next = await transition(h, accessKey, await issueCode(h, s), null);
    expect(next.status).toBe(201);
    expect(await next.json()).toMatchObject({ generation: 2, state: 'ANONYMOUS' });
    expect(await state()).toMatchObject({ generation: 2, bindingState: 'ANONYMOUS', bound: false });
  });

  it('the same external id binds to the same profile; null gives a fresh anonymous profile', async () => {
    const other = await bootstrap(h, (await h.services.engage.environments.listApps('prod'))[0].appKey);
    await transition(h, accessKey, await issueCode(h, s), { externalId: 'u' });
    await transition(h, accessKey, await issueCode(h, other), { externalId: 'u' });
    const profile = (await h.services.engage.inspection.profile('prod', 'u'));
    expect(profile.installations.map((i) => i.id).sort()).toEqual([s.installationId, other.installationId].sort());
    const before = (await h.services.engage.inspection.installation(s.installationId)).profileId;
    await transition(h, accessKey, await issueCode(h, s), null);
    const after = (await h.services.engage.inspection.installation(s.installationId));
    expect(after.profileId).not.toBe(before);
    expect(after.externalId).toBeNull();
  });

  it('409 for an expired code, a consumed code, an unknown code and a reused key', async () => {
    const code = await issueCode(h, s);
    h.clock.advance(300);
    expect((await problem(await transition(h, accessKey, code, null))).code).toBe('binding_code_expired');

    const fresh = await issueCode(h, s);
    const key = randomUUID();
    expect((await transition(h, accessKey, fresh, { externalId: 'a' }, key)).status).toBe(201);
    const consumed = await transition(h, accessKey, fresh, { externalId: 'a' });
    expect(consumed.status).toBe(409);
    expect((await problem(consumed)).code).toBe('binding_code_consumed');
    const reused = await transition(h, accessKey, fresh, { externalId: 'b' }, key);
    expect(reused.status).toBe(409);
    expect((await problem(reused)).code).toBe('idempotency_key_reused');
    const unknown = await transition(h, accessKey, 'svc_bind_nope', null);
    expect(unknown.status).toBe(409);
    expect((await problem(unknown)).code).toBe('binding_code_invalid');
  });

  it('401 for a missing, wrong, revoked or installation credential', async () => {
    const code = await issueCode(h, s);
    for (const token of ['', 'svc_key_wrong', s.credential]) {
      const res = await transition(h, token, code, null);
      expect(res.status).toBe(401);
      expect((await problem(res)).code).toBe('unauthorized');
    }
    const keyId = (await h.services.engage.environments.listAccessKeys('prod'))[0].id;
    await h.services.engage.environments.revokeAccessKey(keyId, ACTOR);
    expect((await transition(h, accessKey, code, null)).status).toBe(401);
  });

  it('a replay (same Idempotency-Key) by a key not allowed for the installation’s app is a 401, and changes nothing', async () => {
    const env = h.services.engage.environments;
    const other = await env.createApp({ environment: 'prod', platform: 'ANDROID', name: 'prod-android' }, ACTOR);
    const otherKey = (await env.createAccessKey({ environment: 'prod', apps: [other.id] }, ACTOR)).key;
    const key = randomUUID();
    const code = await issueCode(h, s);
    const first = await transition(h, accessKey, code, { externalId: 'alice' }, key);
    expect(first.status).toBe(201);
    const committed = await first.text();
    for (const target of [{ externalId: 'alice' }, { externalId: 'mallory' }]) {
      const res = await transition(h, otherKey, code, target, key);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect((await problem(res)).code).toBe('unauthorized');
    }
    expect(await state()).toMatchObject({ generation: 1, bindingState: 'BOUND' });
    // The allowed key still gets its replay.
    const replay = await transition(h, accessKey, code, { externalId: 'alice' }, key);
    expect([replay.status, await replay.text()]).toEqual([200, committed]);
  });

  it('a rotated key works and the previous secret is dead', async () => {
    const keyId = (await h.services.engage.environments.listAccessKeys('prod'))[0].id;
    const rotated = await h.services.engage.environments.rotateAccessKey(keyId, ACTOR);
    expect((await transition(h, accessKey, await issueCode(h, s), null)).status).toBe(401);
    expect((await transition(h, rotated.key, await issueCode(h, s), null)).status).toBe(201);
  });

  it.each([
    ['Idempotency-Key header', { bindingCode: 'x', target: null }, null],
    ['bindingCode', { target: null }, 'k'],
    ['bindingCode', { bindingCode: 7, target: null }, 'k'],
    ['target', { bindingCode: 'x' }, 'k'],
    ['target', { bindingCode: 'x', target: 'user' }, 'k'],
    ['target.externalId', { bindingCode: 'x', target: {} }, 'k'],
    ['target.externalId', { bindingCode: 'x', target: { externalId: '' } }, 'k'],
    ['target.externalId', { bindingCode: 'x', target: { externalId: 'x'.repeat(256) } }, 'k'],
    ['target.email', { bindingCode: 'x', target: { externalId: 'a', email: 'e' } }, 'k'],
    ['installationId', { bindingCode: 'x', target: null, installationId: 'i' }, 'k'],
  ])('400 naming %s', async (field, body, key) => {
    const headers: Record<string, string> = { ...bearer(accessKey) };
    if (key) headers['Idempotency-Key'] = key;
    const res = await h.request('/v1/installation-binding-transitions', json(body, headers));
    expect(res.status).toBe(400);
    expect((await problem(res)).message.startsWith(`${field}: `)).toBe(true);
  });

  it('50 concurrent copies of one transition commit once; the others replay it', async () => {
    const code = await issueCode(h, s);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => transition(h, accessKey, code, { externalId: 'racer' }, key)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(49);
    const bodies = await Promise.all(answers.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(await state()).toMatchObject({ generation: 1, bindingState: 'BOUND' });
    const generations = (await h.services.engage.inspection.installation(s.installationId)).generations;
    expect(generations.map((g) => g.generation)).toEqual([0, 1]);
  });
});
