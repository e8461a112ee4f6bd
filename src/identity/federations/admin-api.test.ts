import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { SYSTEM_ACTOR } from '../audit';

/** The federation routes as served: on the management API with its guards, and in the overview. */
let h: Harness;
let admin: AdminFixture;
let a: string;
let b: string;

beforeAll(async () => {
  h = await createHarness();
  admin = await createAdminFixture(h);
  a = (await h.services.tenants.create({ slug: 'alpha' }, SYSTEM_ACTOR)).id;
  b = (await h.services.tenants.create({ slug: 'beta' }, SYSTEM_ACTOR)).id;
});
afterAll(() => h.close());

describe('federations on the management API', () => {
  it('create, list, count in the overview and delete, audited with the operator and its client', async () => {
    const token = await admin.token();
    const created = await admin.call('POST', '/federations', token, { sourceTenantId: a, targetTenantId: b });
    expect([created.status, await created.text()]).toEqual([201, '']);
    const list = (await (await admin.call('GET', '/federations', token)).json()) as { items: { sourceTenantId: string }[] };
    expect(list.items.map((f) => f.sourceTenantId)).toEqual([a]);
    expect(await (await admin.call('GET', '/overview', token)).json()).toMatchObject({ activeFederations: 1 });
    const gone = await admin.call('DELETE', `/federations/${a}/${b}`, token);
    expect(gone.status).toBe(204);
    expect(await (await admin.call('GET', '/overview', token)).json()).toMatchObject({ activeFederations: 0 });
    const events = (await h.services.store.audit.list({ action: 'federation.deleted', page: 0, size: 5 })).items;
    expect(events[0]).toMatchObject({ actorSubject: admin.operator.subject, actorClientId: 'admin-test', targetId: `${a}/${b}` });
  });

  it('reads need identity.admin.read (or manage), mutations identity.admin.manage, each with the live permission', async () => {
    const reader = await admin.token(['identity.admin.read']);
    expect((await admin.call('GET', '/federations', reader)).status).toBe(200);
    const write = await admin.call('POST', '/federations', reader, { sourceTenantId: a, targetTenantId: b });
    expect([write.status, write.headers.get('www-authenticate'), await write.json()]).toEqual([
      403, 'Bearer error="insufficient_scope", scope="identity.admin.manage"', { error: 'insufficient_scope' },
    ]);
    const nobody = await admin.newOperator('nobody@example.com');
    const token = await admin.token(['identity.admin.read', 'identity.admin.manage'], nobody.id);
    for (const [method, path, body] of [['GET', '/federations', undefined], ['POST', '/federations', { sourceTenantId: a, targetTenantId: b }], ['DELETE', `/federations/${a}/${b}`, undefined]] as const) {
      const res = await admin.call(method, path, token, body);
      expect([res.status, await res.json()]).toEqual([403, { error: 'access_denied' }]);
    }
    expect((await admin.call('GET', '/federations', undefined)).status).toBe(401);
  });
});

describe('the control tenant is never a federation target (an outside review: a federation links by verified email)', () => {
  it('refuses one through the API and the service alike, and creates nothing', async () => {
    const control = (await h.services.tenants.control())!;
    const token = await admin.token();
    const res = await admin.call('POST', '/federations', token, { sourceTenantId: a, targetTenantId: control.id });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body).toMatchObject({ error: 'invalid_request' });
    expect(body.error_description).toContain('control tenant');
    await expect(h.services.federations.create('alpha', control.slug, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'invalid_request' });
    expect(((await (await admin.call('GET', '/federations', token)).json()) as { items: unknown[] }).items).toEqual([]);
    // The control tenant may still be a source: its operators signing in elsewhere gain nothing.
    expect((await admin.call('POST', '/federations', token, { sourceTenantId: control.id, targetTenantId: b })).status).toBe(201);
    expect((await admin.call('DELETE', `/federations/${control.id}/${b}`, token)).status).toBe(204);
  });

  it('never offers nor runs one made into it before (the sign-in page shows no source, a start is refused)', async () => {
    const control = (await h.services.tenants.control())!;
    await h.services.federations.create('alpha', 'beta', SYSTEM_ACTOR);
    await h.sql.run('UPDATE federations SET target_tenant_id = ? WHERE source_tenant_id = ? AND target_tenant_id = ?', [control.id, a, b]);
    const resolved = { tenant: control, issuer: `http://engage.test/t/${control.slug}` } as Parameters<typeof h.services.federations.options>[0];
    expect(await h.services.federations.options(resolved)).toEqual([]);
    expect(await h.services.federations.begin(resolved, { source: 'alpha', sessionId: 's', interactionId: 'i' })).toBeUndefined();
  });
});
