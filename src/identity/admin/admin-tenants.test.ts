import { SYSTEM_ACTOR } from '../audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { createAdminTenant, type AdminFixture } from '../../../test/helpers/admin';
import { createFixture, exchange, type OAuthFixture } from '../../../test/fixtures/oauth';
import { apiError } from '../../../test/helpers/api-error';

/** Spec 03 management table: overview, tenants and users: success, each error row, state afterwards. */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let token: string;

beforeAll(async () => {
  ({ h, a, acme, token } = await createAdminTenant());
});
afterAll(() => h.close());

const call = (method: string, path: string, body?: unknown) => a.json(method, path, token, body);
const acmeId = () => acme.tenant.tenant.id;
const UNKNOWN = '00000000-0000-4000-8000-00000000dead';

describe('overview and tenants', () => {
  it('GET /overview totals the environment', async () => {
    const before = await call('GET', '/overview');
    expect(before).toMatchObject({ status: 200, body: { tenants: expect.any(Number), clients: expect.any(Number), resources: expect.any(Number), activeFederations: 0 } });
    await call('POST', '/tenants', { slug: 'overview-probe' });
    expect((await call('GET', '/overview')).body.tenants).toBe(before.body.tenants + 1);
  });

  it('POST /tenants creates a tenant (201), readable at GET /tenants/{id}', async () => {
    const created = await call('POST', '/tenants', { slug: 'beta', registrationMode: 'SELF_SERVICE' });
    expect(created).toEqual({
      status: 201,
      body: {
        id: expect.any(String), slug: 'beta', issuer: `${PUBLIC_URL}/t/beta`, status: 'ACTIVE', registrationMode: 'SELF_SERVICE', clientCount: 0, resourceCount: 0,
        createdAt: expect.any(String), managedIssuer: `${PUBLIC_URL}/t/beta`, configurationManaged: false, slugLocked: false, issuerLocked: false,
      },
    });
    expect(await call('GET', `/tenants/${created.body.id}`)).toEqual({ status: 200, body: created.body });
    // The new tenant's issuer works at once: its discovery document is served.
    expect((await h.request('/t/beta/.well-known/openid-configuration')).status).toBe(200);
  });

  it.each([
    ['a taken slug', { slug: 'acme' }, 409, 'tenant_conflict'],
    ['a bad slug', { slug: 'Not A Slug' }, 400, 'invalid_request'],
    ['an unknown field', { slug: 'gamma', extra: 1 }, 400, 'invalid_request'],
    ['an unknown registration mode', { slug: 'gamma', registrationMode: 'OPEN' }, 400, 'invalid_request'],
    ['no JSON', 'slug=gamma', 400, 'invalid_request'],
  ])('POST /tenants with %s is %i %s', async (_what, body, status, error) => {
    expect(await call('POST', '/tenants', body)).toEqual({ status, body: apiError(error) });
  });

  it.each([
    ['not a uuid', '/tenants/acme', 400, 'invalid_request'],
    ['an unknown id', `/tenants/${UNKNOWN}`, 404, 'unknown_tenant'],
    ['an unknown id (users)', `/tenants/${UNKNOWN}/users`, 404, 'unknown_tenant'],
  ])('GET with %s is %i %s', async (_what, path, status, error) => {
    expect(await call('GET', path)).toEqual({ status, body: apiError(error) });
  });

  it('PUT /tenants/{id} replaces slug, issuer and registration mode (200), and the managed issuer stays', async () => {
    const t = (await call('POST', '/tenants', { slug: 'renamed-from' })).body;
    const res = await call('PUT', `/tenants/${t.id}`, { slug: 'renamed-to', issuer: 'https://id.renamed.example', registrationMode: 'SELF_SERVICE' });
    expect(res).toMatchObject({ status: 200, body: { id: t.id, slug: 'renamed-to', issuer: 'https://id.renamed.example', managedIssuer: t.managedIssuer, registrationMode: 'SELF_SERVICE' } });
    expect((await call('GET', `/tenants/${t.id}`)).body).toEqual(res.body);
    // Back to the managed issuer: the custom one is cleared.
    const back = await call('PUT', `/tenants/${t.id}`, { slug: 'renamed-to', issuer: t.managedIssuer, registrationMode: 'CONTROLLED' });
    expect(back.body).toMatchObject({ issuer: t.managedIssuer, registrationMode: 'CONTROLLED' });
    // The old slug stays reserved by the managed issuer's path.
    expect(await call('POST', '/tenants', { slug: 'renamed-from' })).toEqual({ status: 409, body: { error: 'tenant_conflict' } });
  });

  it('PUT refuses what the locks forbid', async () => {
    const control = await call('GET', `/tenants/${a.controlId}`);
    expect(control.body).toMatchObject({ slugLocked: true, issuerLocked: true });
    const put = (id: string, body: unknown) => call('PUT', `/tenants/${id}`, body);
    const c = control.body;
    expect(await put(c.id, { slug: 'other', issuer: c.issuer, registrationMode: c.registrationMode })).toEqual({ status: 409, body: { error: 'tenant_slug_locked' } });
    expect(await put(c.id, { slug: c.slug, issuer: 'https://control.example', registrationMode: c.registrationMode })).toEqual({ status: 409, body: { error: 'tenant_issuer_locked' } });
    // An unchanged PUT of the control tenant is allowed (only changes are locked).
    expect((await put(c.id, { slug: c.slug, issuer: c.issuer, registrationMode: c.registrationMode })).status).toBe(200);

    const one = (await call('POST', '/tenants', { slug: 'lock-one', })).body;
    const two = (await call('POST', '/tenants', { slug: 'lock-two' })).body;
    expect((await put(one.id, { slug: 'lock-one', issuer: 'https://shared.example', registrationMode: 'CONTROLLED' })).status).toBe(200);
    expect(await put(two.id, { slug: 'lock-two', issuer: 'https://shared.example', registrationMode: 'CONTROLLED' })).toEqual({ status: 409, body: { error: 'tenant_issuer_locked' } });
    expect(await put(two.id, { slug: 'lock-one', issuer: two.issuer, registrationMode: 'CONTROLLED' })).toEqual({ status: 409, body: { error: 'tenant_conflict' } });
    expect(await put(two.id, { slug: 'lock-two', issuer: 'https://x.example/path', registrationMode: 'CONTROLLED' })).toEqual({ status: 400, body: apiError('invalid_request') });
    expect(await put(two.id, { slug: 'lock-two' })).toEqual({ status: 400, body: apiError('invalid_request') });

    await h.changedElsewhere(() => h.sql.run('UPDATE tenants SET configuration_managed = 1 WHERE id = ?', [two.id]));
    expect(await put(two.id, { slug: 'lock-two', issuer: two.issuer, registrationMode: 'SELF_SERVICE' })).toEqual({ status: 409, body: { error: 'configuration_managed' } });
    expect((await call('GET', `/tenants/${two.id}`)).body).toMatchObject({ configurationManaged: true, registrationMode: 'CONTROLLED' });
  });
});

describe('pagination (every collection shares the envelope)', () => {
  it('pages through tenants with page and size', async () => {
    const all = (await call('GET', '/tenants?size=200')).body;
    expect(all).toMatchObject({ page: 0, size: 200, hasMore: false });
    const n = all.items.length;
    expect(n).toBeGreaterThan(2);
    expect(all.items.find((t: { slug: string }) => t.slug === 'acme')).toMatchObject({ id: acmeId(), clientCount: 2, resourceCount: 1 });
    const first = await call('GET', '/tenants?size=2');
    expect(first.body).toMatchObject({ page: 0, size: 2, hasMore: true });
    expect(first.body.items.map((t: { id: string }) => t.id)).toEqual(all.items.slice(0, 2).map((t: { id: string }) => t.id));
    const second = await call('GET', '/tenants?page=1&size=2');
    expect(second.body.items.map((t: { id: string }) => t.id)).toEqual(all.items.slice(2, 4).map((t: { id: string }) => t.id));
    expect((await call('GET', `/tenants?size=1&page=${n - 1}`)).body).toMatchObject({ hasMore: false, items: [expect.any(Object)] });
    expect((await call('GET', '/tenants?page=1000000')).body).toEqual({ items: [], page: 1000000, size: 50, hasMore: false });
  });

  it.each(['page=-1', 'page=1000001', 'page=1.5', 'page=x', 'size=0', 'size=201', 'size=', 'size=1&size=2', 'page=01'])('?%s is 400 invalid_request', async (q) => {
    for (const path of ['/tenants', `/tenants/${acmeId()}/users`, `/tenants/${acmeId()}/clients`, '/audit-events']) {
      expect(await call('GET', `${path}?${q}`)).toEqual({ status: 400, body: apiError('invalid_request') });
    }
  });
});

describe('users', () => {
  const users = () => `/tenants/${acmeId()}/users`;

  it('POST creates (201), GET reads, PUT replaces, DELETE removes (204) and then it is unknown', async () => {
    const created = await call('POST', users(), { email: 'Grace@Example.com', emailVerified: true });
    expect(created).toEqual({ status: 201, body: { id: expect.any(String), subject: expect.any(String), email: 'grace@example.com', emailVerified: true, status: 'ACTIVE', createdAt: expect.any(String) } });
    const path = `${users()}/${created.body.id}`;
    expect(await call('GET', path)).toEqual({ status: 200, body: created.body });
    const updated = await call('PUT', path, { email: 'grace.h@example.com', emailVerified: false, status: 'DISABLED' });
    expect(updated).toEqual({ status: 200, body: { ...created.body, email: 'grace.h@example.com', emailVerified: false, status: 'DISABLED' } });
    expect((await call('GET', path)).body).toEqual(updated.body);
    expect(await call('DELETE', path)).toEqual({ status: 204, body: null });
    expect(await call('GET', path)).toEqual({ status: 404, body: { error: 'unknown_user' } });
    expect(await call('DELETE', path)).toEqual({ status: 404, body: { error: 'unknown_user' } });
    expect(await call('PUT', path, { email: 'x@example.com', emailVerified: false, status: 'ACTIVE' })).toEqual({ status: 404, body: { error: 'unknown_user' } });
  });

  it.each([
    ['a taken email', { email: 'ada@example.com' }, 409, 'user_conflict'],
    ['a bad email', { email: 'not-an-email' }, 400, 'invalid_request'],
    ['a password (the CLI only)', { email: 'pw@example.com', password: 'correct horse battery' }, 400, 'invalid_request'],
    ['no email', { emailVerified: true }, 400, 'invalid_request'],
  ])('POST with %s is %i %s', async (_what, body, status, error) => {
    expect(await call('POST', users(), body)).toEqual({ status, body: apiError(error) });
  });

  it('PUT answers user_conflict for a taken email and invalid_request for a partial body', async () => {
    const u = (await call('POST', users(), { email: 'put-conflict@example.com' })).body;
    expect(await call('PUT', `${users()}/${u.id}`, { email: 'ada@example.com', emailVerified: true, status: 'ACTIVE' })).toEqual({ status: 409, body: { error: 'user_conflict' } });
    expect(await call('PUT', `${users()}/${u.id}`, { email: 'x@example.com' })).toEqual({ status: 400, body: apiError('invalid_request') });
    expect(await call('GET', `${users()}/not-a-uuid`)).toEqual({ status: 400, body: apiError('invalid_request') });
  });

  it("is isolated by tenant: another tenant's user is unknown here", async () => {
    const beta = (await call('POST', '/tenants', { slug: 'iso-beta' })).body;
    expect(await call('GET', `/tenants/${beta.id}/users/${acme.userId}`)).toEqual({ status: 404, body: { error: 'unknown_user' } });
    expect(await call('DELETE', `/tenants/${beta.id}/users/${acme.userId}`)).toEqual({ status: 404, body: { error: 'unknown_user' } });
    expect((await call('GET', `/tenants/${beta.id}/users`)).body.items).toEqual([]);
    expect((await call('GET', `${users()}/${acme.userId}`)).status).toBe(200);
  });

  it('pages through users', async () => {
    const beta = (await call('POST', '/tenants', { slug: 'paged-users' })).body;
    for (let i = 0; i < 5; i++) await call('POST', `/tenants/${beta.id}/users`, { email: `u${i}@example.com` });
    const p0 = (await call('GET', `/tenants/${beta.id}/users?size=2`)).body;
    const p2 = (await call('GET', `/tenants/${beta.id}/users?size=2&page=2`)).body;
    expect([p0.items.length, p0.hasMore, p2.items.length, p2.hasMore]).toEqual([2, true, 1, false]);
  });

  it("PUT status DISABLED stops the user's live tokens at once; ACTIVE brings back those not expired", async () => {
    const f = await createFixture(h, 'disabling');
    const tokens = await exchange(h, f);
    const put = (status: string) => call('PUT', `/tenants/${f.tenant.tenant.id}/users/${f.userId}`, { email: 'ada@example.com', emailVerified: true, status });
    expect((await put('DISABLED')).status).toBe(200);
    expect(await h.services.oauth.liveAccessToken(f.tenant, tokens.access_token)).toBeUndefined();
    expect((await put('ACTIVE')).status).toBe(200);
    expect(await h.services.oauth.liveAccessToken(f.tenant, tokens.access_token)).toBeDefined();
  });

  it("DELETE ends the user's grants, tokens and sessions in the same transaction", async () => {
    const f = await createFixture(h, 'deletion');
    const tokens = await exchange(h, f);
    expect(await h.services.oauth.liveAccessToken(f.tenant, tokens.access_token)).toBeDefined();
    expect(await call('DELETE', `/tenants/${f.tenant.tenant.id}/users/${f.userId}`)).toEqual({ status: 204, body: null });
    expect(await h.services.oauth.liveAccessToken(f.tenant, tokens.access_token)).toBeUndefined();
    const refresh = await h.request('/t/deletion/oauth2/token', {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: f.publicClient }).toString(),
    });
    expect(refresh.status).toBe(400);
    const left = await h.sql.get<{ n: number }>('SELECT count(*) AS n FROM grants WHERE tenant_id = ? AND user_id = ?', [f.tenant.tenant.id, f.userId]);
    expect(Number(left!.n)).toBe(0);
  });

  it('DELETE removes the user from the directory: memberships and role assignments go with the account', async () => {
    const f = await createFixture(h, 'leaver');
    const tenantId = f.tenant.tenant.id;
    const d = h.services.directory;
    await d.createOrganization(tenantId, { slug: 'sales', displayName: 'Sales' }, SYSTEM_ACTOR);
    await d.addOrganizationMember(tenantId, 'sales', { subject: f.subject }, SYSTEM_ACTOR);
    await d.createRole(tenantId, { key: 'seller', displayName: 'Seller', scope: 'ORGANIZATION' }, SYSTEM_ACTOR);
    const org = (await d.organizations(tenantId, { page: 0, size: 10 })).items[0];
    await d.assignRole(tenantId, { roleKey: 'seller', subject: f.subject, scope: 'ORGANIZATION', organizationId: org.id, teamId: null }, SYSTEM_ACTOR);
    await d.createRole(tenantId, { key: 'auditor', displayName: 'Auditor', scope: 'TENANT' }, SYSTEM_ACTOR);
    await d.assignRole(tenantId, { roleKey: 'auditor', subject: f.subject, scope: 'TENANT', organizationId: null, teamId: null }, SYSTEM_ACTOR);
    expect((await d.roleAssignments(tenantId, { page: 0, size: 10 })).items).toHaveLength(2);

    expect(await call('DELETE', `/tenants/${tenantId}/users/${f.userId}`)).toEqual({ status: 204, body: null });
    expect((await d.roleAssignments(tenantId, { page: 0, size: 10 })).items).toEqual([]);
    expect((await d.organizationMembers(tenantId, 'sales', { page: 0, size: 10 })).items).toEqual([]);
  });
});
