import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { createFixture, type OAuthFixture } from '../../../test/fixtures/oauth';
import { apiError } from '../../../test/helpers/api-error';
import { SYSTEM_ACTOR } from '../audit';
import { ADMIN_SCOPES } from './schemas';

/**
 * The management API's social providers (read, add, remove) and directory reads of a tenant
 * (routes-directory.ts, for the console, issue 25): success, each error row, the scope and the
 * live permission, the audit trail, and the state afterwards.
 */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let token: string;
let base: string;

beforeAll(async () => {
  h = await createHarness();
  a = await createAdminFixture(h);
  acme = await createFixture(h, 'acme');
  token = await a.token();
  base = `/tenants/${acme.tenant.tenant.id}`;
});
afterAll(() => h.close());

const call = async (method: string, path: string, body?: unknown, as = token) => {
  const res = await a.call(method, path, as, body);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const UNKNOWN = '00000000-0000-4000-8000-00000000dead';
const google = { name: 'google', issuer: 'https://accounts.google.com', audiences: ['web-client', 'ios-client'] };

describe('social providers', () => {
  it('POST adds one (201), GET pages them by name, DELETE removes it (204), each audited with the operator', async () => {
    expect(await call('GET', `${base}/providers`)).toEqual({ status: 200, body: { items: [], page: 0, size: 50, hasMore: false } });
    const added = await call('POST', `${base}/providers`, google);
    expect(added).toEqual({ status: 201, body: { ...google, createdAt: expect.any(String) } });
    await call('POST', `${base}/providers`, { name: 'apple', issuer: 'https://appleid.apple.com', audiences: ['com.example.app'] });
    const page = await call('GET', `${base}/providers?size=1`);
    expect(page.body).toEqual({ items: [expect.objectContaining({ name: 'apple' })], page: 0, size: 1, hasMore: true });
    expect((await call('GET', `${base}/providers?size=1&page=1`)).body).toMatchObject({ items: [{ name: 'google' }], hasMore: false });
    expect((await h.services.providers.list(acme.tenant.tenant.id)).map((p) => p.name).sort()).toEqual(['apple', 'google']);

    expect(await call('DELETE', `${base}/providers/apple`)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/providers`)).body.items.map((p: { name: string }) => p.name)).toEqual(['google']);
    const events = (await h.services.admin.auditEvents({ tenantId: acme.tenant.tenant.id, page: 0, size: 200 })).items.filter((e) => e.action.startsWith('provider.'));
    expect(events.map((e) => [e.action, e.targetId, e.actorSubject])).toEqual([
      ['provider.removed', 'apple', a.operator.subject],
      ['provider.added', 'apple', a.operator.subject],
      ['provider.added', 'google', a.operator.subject],
    ]);
  });

  it.each([
    ['a taken name', google, 409, 'provider_conflict'],
    ['a name with capitals', { ...google, name: 'Google' }, 400, 'invalid_request'],
    ['no audience', { ...google, name: 'g2', audiences: [] }, 400, 'invalid_request'],
    ['an issuer with a query', { ...google, name: 'g3', issuer: 'https://accounts.example.com/?x=1' }, 400, 'invalid_request'],
    ['an issuer that is not a URL', { ...google, name: 'g4', issuer: 'accounts' }, 400, 'invalid_request'],
    ['an unknown field', { ...google, name: 'g5', clientSecret: 'x' }, 400, 'invalid_request'],
  ])('POST with %s is %i %s, and adds nothing', async (_what, body, status, error) => {
    expect(await call('POST', `${base}/providers`, body)).toEqual({ status, body: apiError(error) });
    expect((await h.services.providers.list(acme.tenant.tenant.id)).map((p) => p.name)).toEqual(['google']);
  });

  it('DELETE of an unknown provider is 404 unknown_provider; a malformed name 400; an unknown tenant 404', async () => {
    expect(await call('DELETE', `${base}/providers/nobody`)).toEqual({ status: 404, body: { error: 'unknown_provider' } });
    expect(await call('DELETE', `${base}/providers/Not%20A%20Name`)).toEqual({ status: 400, body: apiError('invalid_request') });
    expect(await call('GET', `/tenants/${UNKNOWN}/providers`)).toEqual({ status: 404, body: { error: 'unknown_tenant' } });
    expect(await call('GET', `${base}/providers?size=0`)).toEqual({ status: 400, body: apiError('invalid_request') });
  });

  it('reads need identity.admin.read, changes identity.admin.manage, each with the live permission', async () => {
    const reader = await a.token([ADMIN_SCOPES.read]);
    expect((await call('GET', `${base}/providers`, undefined, reader)).status).toBe(200);
    expect(await call('POST', `${base}/providers`, { ...google, name: 'g6' }, reader)).toEqual({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await call('DELETE', `${base}/providers/google`, undefined, reader)).toEqual({ status: 403, body: { error: 'insufficient_scope' } });
    const stranger = await a.newOperator('provider-stranger@example.com', [ADMIN_SCOPES.read]);
    const scoped = await a.token([ADMIN_SCOPES.manage], stranger.id);
    expect(await call('POST', `${base}/providers`, { ...google, name: 'g7' }, scoped)).toEqual({ status: 403, body: { error: 'access_denied' } });
  });
});

describe('directory reads', () => {
  it('GET pages the organizations, an organization’s teams, roles, permissions and role assignments', async () => {
    const t = acme.tenant.tenant.id;
    const d = h.services.directory;
    const org = await d.createOrganization(t, { slug: 'north', displayName: 'North' }, SYSTEM_ACTOR);
    await d.createTeam(t, 'north', { slug: 'sales', displayName: 'Sales' }, SYSTEM_ACTOR);
    await d.createPermission(t, { key: 'orders.read', displayName: 'Read orders' }, SYSTEM_ACTOR);
    await d.createRole(t, { key: 'clerk', displayName: 'Clerk', scope: 'TENANT' }, SYSTEM_ACTOR);
    await d.assignRole(t, { roleKey: 'clerk', subject: acme.subject, scope: 'TENANT', organizationId: null, teamId: null }, SYSTEM_ACTOR);

    expect((await call('GET', `${base}/directory/organizations`)).body).toEqual({
      items: [{ id: org.id, slug: 'north', displayName: 'North', status: 'ACTIVE' }], page: 0, size: 50, hasMore: false,
    });
    expect((await call('GET', `${base}/directory/organizations/north/teams`)).body.items).toEqual([{ id: expect.any(String), organizationId: org.id, slug: 'sales', displayName: 'Sales', status: 'ACTIVE' }]);
    expect((await call('GET', `${base}/directory/permissions`)).body.items).toContainEqual({ key: 'orders.read', displayName: 'Read orders', status: 'ACTIVE' });
    expect((await call('GET', `${base}/directory/roles`)).body.items).toContainEqual({ id: expect.any(String), key: 'clerk', displayName: 'Clerk', scope: 'TENANT', status: 'ACTIVE' });
    expect((await call('GET', `${base}/directory/role-assignments`)).body.items).toContainEqual({ roleKey: 'clerk', subject: acme.subject, scope: 'TENANT', organizationId: null, teamId: null });
  });

  it.each([
    ['teams of an unknown organization', `/directory/organizations/south/teams`, 409, 'directory_operation_rejected'],
    ['a malformed organization slug', `/directory/organizations/No%20Slug/teams`, 400, 'invalid_request'],
    ['a bad page size', `/directory/roles?size=201`, 400, 'invalid_request'],
  ])('GET %s is %i %s', async (_what, path, status, error) => {
    expect(await call('GET', `${base}${path}`)).toEqual({ status, body: apiError(error) });
  });

  it('needs identity.admin.read with its live permission; another tenant’s objects stay out', async () => {
    const stranger = await a.newOperator('directory-stranger@example.com', [ADMIN_SCOPES.manage]);
    expect(await call('GET', `${base}/directory/roles`, undefined, await a.token([ADMIN_SCOPES.read], stranger.id))).toEqual({ status: 403, body: { error: 'access_denied' } });
    const other = (await call('POST', '/tenants', { slug: 'other-directory' })).body.id as string;
    expect((await call('GET', `/tenants/${other}/directory/organizations`)).body.items).toEqual([]);
  });
});
