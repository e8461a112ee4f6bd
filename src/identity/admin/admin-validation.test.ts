import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectViolations } from '../../../test/helpers/api-error';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { createAdminFixture, type AdminFixture } from '../../../test/helpers/admin';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 23 point 4: the management API answers a bad body with 400 invalid_request and an
 * error_description that names every field and its rule (the CLI's wording), not only the first;
 * other errors keep spec 03's bare `{error}`.
 */
let h: Harness;
let a: AdminFixture;
let token: string;
let tenantId: string;
let userId: string;

beforeAll(async () => {
  h = await createHarness();
  a = await createAdminFixture(h);
  token = await a.token();
  tenantId = (await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)).id;
  userId = (await h.services.users.create(tenantId, { email: 'ann@example.com', emailVerified: true }, SYSTEM_ACTOR)).id;
});
afterAll(() => h.close());

type Row = [name: string, method: string, path: () => string, body: unknown, mentions: string[]];
const rows: Row[] = [
  ['POST /tenants: bad slug and unknown registrationMode', 'POST', () => '/tenants', { slug: 'Not A Slug', registrationMode: 'OPEN' }, ['slug: must match', 'registrationMode: must be one of CONTROLLED, SELF_SERVICE']],
  ['POST /tenants: two unknown properties', 'POST', () => '/tenants', { slug: 'gamma', extra: 1, other: 2 }, ['extra: is not an allowed property', 'other: is not an allowed property']],
  [
    'PUT /tenants/{id}: bad slug, issuer and registrationMode',
    'PUT', () => `/tenants/${tenantId}`, { slug: 'A', issuer: 'not a uri', registrationMode: 'X' },
    ['slug: must match', 'issuer: must be an absolute URI', 'registrationMode: must be one of'],
  ],
  ['POST /tenants/{id}/users: bad email and emailVerified', 'POST', () => `/tenants/${tenantId}/users`, { email: 'nope', emailVerified: 'yes' }, ['email: ', 'emailVerified: must be a boolean']],
  ['PUT /tenants/{id}/users/{id}: status missing and email wrong type', 'PUT', () => `/tenants/${tenantId}/users/${userId}`, { email: 5 }, ['email: must be a string', 'status: is required']],
  ['POST /tenants/{id}/resources: audience empty and scopes not an array', 'POST', () => `/tenants/${tenantId}/resources`, { uri: 'https://api.example.com', audience: '', scopes: 'read' }, ['audience: must be at least 1 character', 'scopes: must be an array']],
  ['POST /tenants/{id}/credentials: empty resourceUri and unknown property', 'POST', () => `/tenants/${tenantId}/credentials`, { resourceUri: '', name: 'x' }, ['resourceUri: must be at least 1 character', 'name: is not an allowed property']],
];

describe('management API: a bad body names every violation', () => {
  it.each(rows)('%s', async (_name, method, path, body, mentions) => {
    await expectViolations(await a.call(method, path(), token, body), mentions);
  });

  it('POST /tenants/{id}/clients: every violation, the missing required fields too', async () => {
    const res = await a.call('POST', `/tenants/${tenantId}/clients`, token, { clientId: 'bad id!', displayName: 5 });
    const got = (await res.json()) as { error: string; error_description: string };
    expect(res.status).toBe(400);
    for (const m of ['clientId: must match', 'displayName: must be a string', 'applicationType: is required', 'redirectUris: is required']) expect(got.error_description).toContain(m);
  });

  it('an unreadable body and a bad path value are described too', async () => {
    const res = await h.request(`${a.root}/tenants`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{' });
    expect([res.status, await res.json()]).toEqual([400, { error: 'invalid_request', error_description: 'body: is not valid JSON' }]);
    const path = await a.call('GET', '/tenants/not-a-uuid/users', token);
    expect([path.status, await path.json()]).toEqual([400, { error: 'invalid_request', error_description: 'tenantId: must be a uuid' }]);
  });

  it('declared routes keep the path first: a malformed id, then an unknown tenant, before anything about the body (issue 22 point 4)', async () => {
    const badTenant = await a.call('PUT', '/tenants/not-a-uuid', token, { slug: 'A' });
    expect([badTenant.status, await badTenant.json()]).toEqual([400, { error: 'invalid_request', error_description: 'tenantId: must be a uuid' }]);
    const unknown = await a.call('POST', '/tenants/00000000-0000-4000-8000-00000000dead/users', token, { email: 5 });
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'unknown_tenant' }]);
    const badUser = await a.call('PUT', `/tenants/${tenantId}/users/not-a-uuid`, token, { email: 5 });
    expect([badUser.status, await badUser.json()]).toEqual([400, { error: 'invalid_request', error_description: 'userId: must be a uuid' }]);
    const badCredential = await a.call('DELETE', `/tenants/${tenantId}/credentials/nope`, token);
    expect([badCredential.status, await badCredential.json()]).toEqual([400, { error: 'invalid_request', error_description: 'credentialId: must be a uuid' }]);
    const filter = await a.call('GET', '/audit-events?tenant=acme', token);
    expect([filter.status, await filter.json()]).toEqual([400, { error: 'invalid_request', error_description: 'tenant: must be a tenant id (uuid)' }]);
    const page = await a.call('GET', `/tenants/${tenantId}/clients?size=0`, token);
    expect(page.status).toBe(400);
  });

  it('other errors keep the bare {error} of spec 03', async () => {
    const taken = await a.call('POST', '/tenants', token, { slug: 'acme' });
    expect([taken.status, await taken.json()]).toEqual([409, { error: 'tenant_conflict' }]);
    const unknown = await a.call('GET', `/tenants/${tenantId}/users/00000000-0000-4000-8000-00000000dead`, token);
    expect([unknown.status, await unknown.json()]).toEqual([404, { error: 'unknown_user' }]);
    const scope = await a.call('POST', '/tenants', await a.token(['identity.admin.read']), { slug: 'delta' });
    expect([scope.status, await scope.json()]).toEqual([403, { error: 'insufficient_scope' }]);
  });
});
