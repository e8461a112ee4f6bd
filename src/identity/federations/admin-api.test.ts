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
