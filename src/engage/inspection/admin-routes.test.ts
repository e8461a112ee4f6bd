import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { createPushWorld, device, send, sendBody, type PushWorld } from '../../../test/fixtures/messaging';
import { bearer, bootstrap, op, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';

/**
 * Inspection, erasure and audit through the engagement administration API (issue 24 points 5
 * and 6): every route's status table (401, 403 per scope and narrowed permission, 400, 404),
 * isolation between environments (another environment's ids answer 404), no push token or
 * secret in any answer, and the state after an erasure.
 */
let w: PushWorld;
let a: EngageAdminFixture;
let bound: Session & { token: string | null };
let anon: Session & { token: string | null };
let other: Session;
let otherEnv: Awaited<ReturnType<typeof setupEnvironment>>;
let profileId: string;
const sendIds: string[] = [];
const { read, manage, send: sendScope, privacy } = ENGAGE_ADMIN_API.scopes;
const at = '2026-01-01T00:00:01.000Z';

beforeAll(async () => {
  w = await createPushWorld();
  a = await createEngageAdminFixture(w.h);
  bound = await device(w, {
    externalId: 'customer-42',
    ops: [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { theme: 'dark' } }, { occurredAt: at })],
  });
  const { ingest } = await import('../../../test/fixtures/engage');
  await ingest(w.h, bound, [
    op('PROFILE_ATTRIBUTES_EDITED', { set: { plan: 'pro' } }, { generation: bound.generation, occurredAt: at }),
    op('PROFILE_TAGS_EDITED', { add: ['vip'] }, { generation: bound.generation, occurredAt: at }),
    op('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'news', channel: 'PUSH', subscribed: true }] }, { generation: bound.generation, occurredAt: at }),
    op('EVENT_TRACKED', { name: 'purchase', properties: { sku: 'x' } }, { generation: bound.generation, occurredAt: at }),
  ]);
  anon = await device(w, { platform: 'ANDROID' });
  profileId = (await w.h.services.engage.profiles.findProfileByExternalId(w.envId, 'customer-42'))!;
  for (const value of [bound.installationId, anon.installationId]) {
    w.h.clock.advance(1000);
    const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value }));
    expect(res.status).toBe(202);
    sendIds.push(((await res.json()) as { requestId: string }).requestId);
  }
  // The second send stands for a console test send (its mark is what inspection shows).
  await w.h.sql.run('UPDATE push_sends SET is_test = 1 WHERE id = ?', [sendIds[1]]);
  otherEnv = await setupEnvironment(w.h, 'other');
  other = await bootstrap(w.h, otherEnv.app.appKey);
}, 60_000);
afterAll(() => w?.close());

const base = () => `/environments/shop`;
type Body = Record<string, unknown> & { items?: Record<string, unknown>[] };
async function get(path: string, scopes = [read]): Promise<[number, Body]> {
  const res = await a.call('GET', path, await a.token(scopes));
  expect(res.headers.get('cache-control')).toBe('no-store');
  return [res.status, res.status === 204 ? {} : ((await res.json()) as Body)];
}
/** No push token, app key, access key or installation credential anywhere in `body`. */
function noSecret(body: unknown) {
  const text = JSON.stringify(body);
  for (const s of [bound.token, anon.token, bound.credential, bound.revocationCredential, anon.credential, w.accessKey, w.ios.appKey, w.android.appKey])
    if (s) expect(text).not.toContain(s);
}

describe('inspection (GET /environments/{environmentId}/…)', () => {
  it('installations: keyset pages in id order, whether a push token is held, nothing of another environment', async () => {
    const ids = [bound.installationId, anon.installationId].sort();
    const [s1, p1] = await get(`${base()}/installations?size=1`);
    expect(s1).toBe(200);
    expect(p1).toMatchObject({ size: 1, hasMore: true, next: ids[0] });
    expect(p1.items!.map((i) => i.id)).toEqual([ids[0]]);
    const [, p2] = await get(`${base()}/installations?size=1&after=${p1.next}`);
    expect(p2).toMatchObject({ size: 1, hasMore: false, next: null });
    expect(p2.items!.map((i) => i.id)).toEqual([ids[1]]);
    const [, all] = await get(`${base()}/installations`);
    expect(all.items!.map((i) => [i.id, i.pushTokenHeld])).toEqual(ids.map((id) => [id, true]));
    expect(all.items!.find((i) => i.id === bound.installationId)).toMatchObject({ bindingState: 'BOUND', profileId, platform: 'IOS' });
    noSecret(all);
    const [, theirs] = await get('/environments/other/installations');
    expect(theirs.items!.map((i) => i.id)).toEqual([other.installationId]);
    expect(theirs.items![0].pushTokenHeld).toBe(false);
  });

  it('an installation: state, binding history, attributes, whether a token is held, its last operations; never the token', async () => {
    const [status, body] = await get(`${base()}/installations/${bound.installationId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: bound.installationId, environmentId: w.envId, bindingState: 'BOUND', generation: bound.generation, profileId, externalId: 'customer-42',
      pushTokenHeld: true, attributes: { theme: 'dark' }, pushPermission: 'AUTHORIZED',
    });
    expect(body.generations).toEqual([
      expect.objectContaining({ generation: 0, bindingState: 'ANONYMOUS' }),
      expect.objectContaining({ generation: bound.generation, profileId, bindingState: 'BOUND' }),
    ]);
    const ops = body.operations as { type: string; status: string }[];
    expect(ops[0]).toMatchObject({ type: 'EVENT_TRACKED', status: 'ACCEPTED' });
    expect(ops.map((o) => o.type)).toContain('PUSH_TOKEN_SET');
    expect(body).not.toHaveProperty('pushToken');
    noSecret(body);
  });

  it('a profile by id or by external id: attributes, tags, subscriptions, its installations', async () => {
    const [s1, byId] = await get(`${base()}/profiles/${profileId}`);
    const [s2, byExternal] = await get(`${base()}/profiles/external/customer-42`);
    expect([s1, s2]).toEqual([200, 200]);
    expect(byId).toEqual(byExternal);
    expect(byId).toMatchObject({
      id: profileId, environmentId: w.envId, externalId: 'customer-42', state: 'BOUND', attributes: { plan: 'pro' }, tags: ['vip'],
      subscriptions: [{ list: 'news', channel: 'PUSH', subscribed: true }],
      installations: [{ id: bound.installationId, appId: w.ios.id, platform: 'IOS', generation: bound.generation }],
    });
    // An anonymous profile, by its id.
    const anonProfile = (await get(`${base()}/installations/${anon.installationId}`))[1].profileId as string;
    expect((await get(`${base()}/profiles/${anonProfile}`))[1]).toMatchObject({ externalId: null, state: 'BOUND' });
  });

  it('sends: newest first, filtered by template, test mark and delivery state; one send with its deliveries by state; its deliveries without tokens', async () => {
    const [status, page] = await get(`${base()}/sends`);
    expect(status).toBe(200);
    expect(page.items!.map((s) => [s.id, s.isTest, s.templateKey])).toEqual([[sendIds[1], true, 'order.shipped'], [sendIds[0], false, 'order.shipped']]);
    expect((await get(`${base()}/sends?test=true`))[1].items!.map((s) => s.id)).toEqual([sendIds[1]]);
    expect((await get(`${base()}/sends?test=false`))[1].items!.map((s) => s.id)).toEqual([sendIds[0]]);
    expect((await get(`${base()}/sends?template=nothing`))[1].items).toEqual([]);
    expect((await get(`${base()}/sends?state=PENDING&size=1`))[1]).toMatchObject({ page: 0, size: 1, hasMore: true });
    expect((await get(`${base()}/sends?state=FAILED`))[1].items).toEqual([]);
    expect((await get('/environments/other/sends'))[1].items).toEqual([]);
    // By installation (issue 25): the sends with a delivery to it, its id in any case.
    expect((await get(`${base()}/sends?installation=${bound.installationId}`))[1].items!.map((s) => s.id)).toEqual([sendIds[0]]);
    expect((await get(`${base()}/sends?installation=${anon.installationId.toUpperCase()}`))[1].items!.map((s) => s.id)).toEqual([sendIds[1]]);
    expect((await get(`${base()}/sends?installation=${other.installationId}`))[1].items).toEqual([]);
    expect((await get(`${base()}/sends?installation=${bound.installationId}&test=true`))[1].items).toEqual([]);
    const [s1, one] = await get(`${base()}/sends/${sendIds[0]}`);
    expect(s1).toBe(200);
    expect(one).toMatchObject({ id: sendIds[0], isTest: false, recipient: { type: 'INSTALLATION_ID', value: bound.installationId }, deliveries: { PENDING: 1 } });
    const [s2, deliveries] = await get(`${base()}/sends/${sendIds[0]}/deliveries`);
    expect(s2).toBe(200);
    expect(deliveries.items!.map((d) => [d.installationId, d.state, d.provider])).toEqual([[bound.installationId, 'PENDING', 'APNS']]);
    expect(deliveries.items![0]).not.toHaveProperty('token');
    expect((await get(`${base()}/sends/${sendIds[0]}/deliveries?state=SENT`))[1].items).toEqual([]);
    noSecret([page, one, deliveries]);
  });

  it('an installation\'s deliveries (issue 25, its timeline): newest first, filtered by state, without tokens, none of another installation', async () => {
    w.h.clock.advance(1000);
    const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: bound.installationId }));
    const later = ((await res.json()) as { requestId: string }).requestId;
    const [status, page] = await get(`${base()}/installations/${bound.installationId.toUpperCase()}/deliveries`);
    expect(status).toBe(200);
    expect(page).toMatchObject({ page: 0, hasMore: false });
    expect(page.items!.map((d) => [d.sendId, d.installationId, d.state, d.provider])).toEqual([
      [later, bound.installationId, 'PENDING', 'APNS'],
      [sendIds[0], bound.installationId, 'PENDING', 'APNS'],
    ]);
    expect(page.items![0]).not.toHaveProperty('token');
    expect((await get(`${base()}/installations/${bound.installationId}/deliveries?size=1`))[1]).toMatchObject({ size: 1, hasMore: true, items: [{ sendId: later }] });
    expect((await get(`${base()}/installations/${bound.installationId}/deliveries?state=SENT`))[1].items).toEqual([]);
    expect((await get(`${base()}/installations/${anon.installationId}/deliveries`))[1].items!.map((d) => [d.sendId, d.provider])).toEqual([[sendIds[1], 'FCM']]);
    noSecret(page);
    // The later tests count the environment's sends: this one leaves none behind.
    await w.h.sql.run('DELETE FROM push_deliveries WHERE send_id = ?', [later]);
    await w.h.sql.run('DELETE FROM push_sends WHERE id = ?', [later]);
  });
});

/** Every route with a valid path of the shop environment, an id of the other one, and a malformed id. */
const routes = () => [
  { method: 'GET', path: `${base()}/installations`, scope: read },
  { method: 'GET', path: `${base()}/installations/${bound.installationId}`, scope: read, theirs: `${base()}/installations/${other.installationId}`, malformed: `${base()}/installations/nope` },
  { method: 'GET', path: `${base()}/installations/${bound.installationId}/deliveries`, scope: read, theirs: `${base()}/installations/${other.installationId}/deliveries`, malformed: `${base()}/installations/${bound.installationId}/deliveries?state=LOST` },
  { method: 'GET', path: `${base()}/profiles/${profileId}`, scope: read, theirs: `${base()}/profiles/${randomUUID()}`, malformed: `${base()}/profiles/nope` },
  { method: 'GET', path: `${base()}/profiles/external/customer-42`, scope: read, theirs: `${base()}/profiles/external/someone-else` },
  { method: 'GET', path: `${base()}/sends`, scope: read, malformed: `${base()}/sends?state=LOST` },
  { method: 'GET', path: `${base()}/sends/${sendIds[0]}`, scope: read, theirs: `${base()}/sends/${randomUUID()}`, malformed: `${base()}/sends/nope` },
  { method: 'GET', path: `${base()}/sends/${sendIds[0]}/deliveries`, scope: read, theirs: `${base()}/sends/${randomUUID()}/deliveries`, malformed: `${base()}/sends/${sendIds[0]}/deliveries?size=0` },
  { method: 'GET', path: `${base()}/audit-events`, scope: read, malformed: `${base()}/audit-events?from=yesterday` },
  { method: 'DELETE', path: `${base()}/installations/${randomUUID()}`, scope: privacy, theirs: `${base()}/installations/${other.installationId}`, malformed: `${base()}/installations/nope` },
  { method: 'DELETE', path: `${base()}/profiles/${randomUUID()}`, scope: privacy, malformed: `${base()}/profiles/nope` },
  { method: 'DELETE', path: `${base()}/profiles/external/someone-else`, scope: privacy },
];

describe('status table of every route', () => {
  it('401 without a token; 403 insufficient_scope without the scope; 403 access_denied with a permission narrowed to another environment', async () => {
    const otherOnly = await a.newOperator(`other-${randomUUID()}@example.com`, [read, manage, sendScope, privacy].map((s) => `${s}:other`));
    for (const r of routes()) {
      const none = await a.call(r.method, r.path, undefined);
      expect([r.path, none.status, await none.json()]).toEqual([r.path, 401, { error: 'invalid_token' }]);
      const wrong = r.scope === privacy ? [read, manage, sendScope] : [sendScope, privacy];
      const res = await a.call(r.method, r.path, await a.token(wrong));
      expect([r.path, res.status, await res.json()]).toEqual([r.path, 403, { error: 'insufficient_scope' }]);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer error="insufficient_scope", scope="${r.scope}"`);
      const narrowed = await a.call(r.method, r.path, await a.token([read, manage, sendScope, privacy], otherOnly.id));
      expect([r.path, narrowed.status, await narrowed.json()]).toEqual([r.path, 403, { error: 'access_denied' }]);
    }
  });

  it('400 invalid_request for a malformed id or query; 404 for an id of another environment or none', async () => {
    const token = await a.token([read, privacy]);
    for (const r of routes()) {
      if (r.malformed) {
        const res = await a.call(r.method, r.malformed, token);
        expect([r.malformed, res.status, ((await res.json()) as { error: string }).error]).toEqual([r.malformed, 400, 'invalid_request']);
      }
      if (r.theirs) {
        const res = await a.call(r.method, r.theirs, token);
        expect([r.theirs, res.status]).toEqual([r.theirs, 404]);
        expect(['unknown_installation', 'unknown_profile', 'send_not_found']).toContain(((await res.json()) as { error: string }).error);
      }
    }
    const unknownEnv = await a.call('GET', '/environments/nowhere/installations', token);
    expect([unknownEnv.status, await unknownEnv.json()]).toEqual([404, { error: 'unknown_environment' }]);
    for (const q of ['size=201', 'size=1&size=2', 'after=', 'after=a&after=b', 'after=not-a-uuid', `after=${'a'.repeat(101)}`])
      expect((await a.call('GET', `${base()}/installations?${q}`, token)).status).toBe(400);
    for (const q of ['test=maybe', 'template=', 'page=-1', 'installation=nope', 'installation=', `installation=${randomUUID()}&installation=${randomUUID()}`])
      expect((await a.call('GET', `${base()}/sends?${q}`, token)).status).toBe(400);
    // The other environment's installation is still there.
    expect((await get(`/environments/other/installations/${other.installationId}`))[0]).toBe(200);
  });

  it('an operator narrowed to the environment reads it', async () => {
    const shopReader = await a.newOperator(`shop-${randomUUID()}@example.com`, [`${read}:shop`]);
    const res = await a.call('GET', `${base()}/installations/${bound.installationId}`, await a.token([read], shopReader.id));
    expect(res.status).toBe(200);
  });
});

describe('erasure (engage.admin.privacy)', () => {
  it('an installation: 204 committed, gone from inspection, a repeat is 404, the SDK revocation is a repeat (204), audited with the environment', async () => {
    const victim = await device(w);
    const path = `${base()}/installations/${victim.installationId}`;
    const token = await a.token([privacy]);
    expect((await a.call('DELETE', path, token)).status).toBe(204);
    expect((await get(path))[0]).toBe(404);
    const again = await a.call('DELETE', path, token);
    expect([again.status, await again.json()]).toEqual([404, { error: 'unknown_installation' }]);
    expect(await w.h.sql.get('SELECT id FROM installations WHERE id = ?', [victim.installationId])).toBeUndefined();
    expect(await w.h.sql.get('SELECT id FROM push_deliveries WHERE installation_id = ?', [victim.installationId])).toBeUndefined();
    const revoked = await w.h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(victim.revocationCredential) });
    expect(revoked.status).toBe(204);
    const [, audit] = await get(`${base()}/audit-events?action=installation.erased`);
    expect(audit.items).toEqual([
      expect.objectContaining({ action: 'installation.erased', targetType: 'installation', targetId: victim.installationId, environmentId: w.envId, tenantId: null, actorSubject: a.operator.subject }),
    ]);
  });

  it('a profile by external id: its installations, attributes, tags, subscriptions and events, deliveries redacted; a repeat is 404; the audit never names the external id', async () => {
    const token = await a.token([privacy]);
    const toPerson = await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'customer-42' }));
    expect(toPerson.status).toBe(202);
    const res = await a.call('DELETE', `${base()}/profiles/external/customer-42`, token);
    expect(res.status).toBe(204);
    expect((await get(`${base()}/profiles/${profileId}`))[0]).toBe(404);
    expect((await get(`${base()}/profiles/external/customer-42`))[0]).toBe(404);
    expect((await get(`${base()}/installations/${bound.installationId}`))[0]).toBe(404);
    for (const [table, col, id] of [
      ['profiles', 'id', profileId],
      ['profile_attributes', 'profile_id', profileId],
      ['profile_tags', 'profile_id', profileId],
      ['profile_subscriptions', 'profile_id', profileId],
      ['operations', 'profile_id', profileId],
      ['installations', 'id', bound.installationId],
      ['push_deliveries', 'installation_id', bound.installationId],
      ['push_sends', 'recipient_value', bound.installationId],
      ['push_sends', 'recipient_value', 'customer-42'],
    ])
      expect([table, (await w.h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${col} = ?`, [id]))!.n]).toEqual([table, 0]);
    // The send to the external id stays in the ledger, naming neither the person nor the device.
    const sends = await w.h.sql.all<{ recipient_value: string; response: string }>('SELECT recipient_value, response FROM push_sends WHERE environment_id = ?', [w.envId]);
    expect(sends).toHaveLength(3);
    for (const r of sends) expect(JSON.stringify(r)).not.toMatch(new RegExp(`customer-42|${bound.installationId}`));
    const again = await a.call('DELETE', `${base()}/profiles/${profileId}`, token);
    expect([again.status, await again.json()]).toEqual([404, { error: 'unknown_profile' }]);
    const [, audit] = await get(`${base()}/audit-events?action=profile.erased`);
    expect(audit.items).toEqual([expect.objectContaining({ targetType: 'profile', targetId: profileId, environmentId: w.envId, details: { environmentId: w.envId, installations: 1 } })]);
    expect(JSON.stringify(audit)).not.toContain('customer-42');
    // The other environment is untouched.
    expect((await get(`/environments/other/installations/${other.installationId}`))[0]).toBe(200);
  });
});

describe('audit (GET /environments/{environmentId}/audit-events)', () => {
  it("an operator narrowed to one environment sees that environment's events only; filters; unknown filters are 400", async () => {
    const reader = await a.newOperator(`audit-${randomUUID()}@example.com`, [`${read}:other`]);
    const token = await a.token([read], reader.id);
    const res = await a.call('GET', '/environments/other/audit-events?size=200', token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { environmentId: string; action: string }[] };
    expect(body.items.length).toBeGreaterThan(0);
    expect(new Set(body.items.map((e) => e.environmentId))).toEqual(new Set([otherEnv.environment.id]));
    expect((await a.call('GET', `${base()}/audit-events`, token)).status).toBe(403);
    const [, filtered] = await get('/environments/other/audit-events?action=app.created');
    expect(filtered.items!.map((e) => e.action)).toEqual(['app.created']);
    expect((await get('/environments/other/audit-events?actor=os:test&from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z'))[1].items!.length).toBe(body.items.length);
    expect((await get('/environments/other/audit-events?from=2999-01-01T00:00:00Z'))[1].items).toEqual([]);
    for (const q of ['environment=shop', 'action=', 'tenant=x', 'to=soon'])
      expect((await a.call('GET', `/environments/other/audit-events?${q}`, await a.token([read]))).status).toBe(400);
    noSecret(body);
    expect(JSON.stringify(body)).not.toContain(otherEnv.accessKey);
  });

  it('identity administrators read the same events in GET /identity/admin/audit-events, each with its environment', async () => {
    const res = await a.identity.call('GET', '/audit-events?action=profile.erased', await a.identity.token());
    expect(res.status).toBe(200);
    const [engage] = await get(`${base()}/audit-events?action=profile.erased`);
    expect(engage).toBe(200);
    expect(((await res.json()) as { items: unknown[] }).items).toEqual([expect.objectContaining({ action: 'profile.erased', tenantId: null, environmentId: w.envId, targetId: profileId })]);
  });
});
