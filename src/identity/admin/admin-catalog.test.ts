import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../../test/helpers/harness';
import { createAdminTenant, type AdminFixture } from '../../../test/helpers/admin';
import { API, CALLBACK, type OAuthFixture } from '../../../test/fixtures/oauth';
import { apiError } from '../../../test/helpers/api-error';

/** Spec 03 management table: resources, clients, credentials and signing keys of a tenant. */
let h: Harness;
let a: AdminFixture;
let acme: OAuthFixture;
let token: string;
let base: string;

beforeAll(async () => {
  ({ h, a, acme, token, base } = await createAdminTenant());
});
afterAll(() => h.close());

const call = (method: string, path: string, body?: unknown) => a.json(method, path, token, body);

const client = (over: Record<string, unknown> = {}) => ({
  clientId: 'portal', displayName: 'Portal', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'EXPLICIT',
  redirectUris: [CALLBACK], scopes: ['openid', 'email'], ...over,
});

describe('resources', () => {
  it('POST registers (201), GET pages them', async () => {
    const body = { uri: 'https://billing.example.com', audience: 'billing', scopes: ['billing.read', 'billing.read'] };
    expect(await call('POST', `${base}/resources`, body)).toEqual({ status: 201, body: { uri: body.uri, audience: 'billing', status: 'ACTIVE', scopes: ['billing.read'] } });
    const page = (await call('GET', `${base}/resources?size=200`)).body;
    expect(page.items.map((r: { uri: string }) => r.uri)).toEqual([API, body.uri]);
  });

  it.each([
    ['a taken URI', { uri: API, audience: 'other', scopes: [] }, 409, 'resource_conflict'],
    ['a taken audience', { uri: 'https://other.example.com', audience: 'urn:example:api', scopes: [] }, 409, 'resource_conflict'],
    ['a relative URI', { uri: '/api', audience: 'x', scopes: [] }, 400, 'invalid_request'],
    ['a bad scope', { uri: 'https://x.example.com', audience: 'x', scopes: ['a b'] }, 400, 'invalid_request'],
  ])('POST with %s is %i %s', async (_what, body, status, error) => {
    expect(await call('POST', `${base}/resources`, body)).toEqual({ status, body: apiError(error) });
  });
});

describe('clients', () => {
  it('POST registers a confidential client (201, secret once); the list never shows it', async () => {
    const issued = await call('POST', `${base}/clients`, client());
    expect(issued).toEqual({ status: 201, body: { clientId: 'portal', clientSecret: expect.stringMatching(/^.{40,}$/) } });
    const list = await call('GET', `${base}/clients?size=200`);
    const entry = list.body.items.find((c: { clientId: string }) => c.clientId === 'portal');
    expect(entry).toMatchObject({ displayName: 'Portal', status: 'ACTIVE', configurationManaged: false, defaultResource: null });
    expect(JSON.stringify(list.body)).not.toContain(issued.body.clientSecret);
  });

  it.each([
    ['a taken client id', client({ clientId: 'web' }), 409, 'client_conflict'],
    ['an unregistered default resource', client({ clientId: 'n1', defaultResource: 'https://nowhere.example' }), 409, 'unknown_client_resource'],
    ['no redirect URI', client({ clientId: 'n2', redirectUris: [] }), 400, 'invalid_request'],
    ['an unknown application type', client({ clientId: 'n3', applicationType: 'SPA' }), 400, 'invalid_request'],
  ])('POST with %s is %i %s', async (_what, body, status, error) => {
    expect(await call('POST', `${base}/clients`, body)).toEqual({ status, body: apiError(error) });
  });

  it('PUT replaces the settings and keeps the secret (clientSecret null), which still authenticates', async () => {
    const issued = (await call('POST', `${base}/clients`, client({ clientId: 'keeper' }))).body;
    const res = await call('PUT', `${base}/clients/keeper`, client({ clientId: 'keeper', displayName: 'Keeper 2', consentPolicy: 'PRE_AUTHORIZED', defaultResource: API }));
    expect(res).toEqual({ status: 200, body: { clientId: 'keeper', clientSecret: null } });
    const entry = (await call('GET', `${base}/clients?size=200`)).body.items.find((c: { clientId: string }) => c.clientId === 'keeper');
    expect(entry).toMatchObject({ displayName: 'Keeper 2', consentPolicy: 'PRE_AUTHORIZED', defaultResource: API });
    const found = (await h.services.clients.find(acme.tenant.tenant.id, 'keeper'))!;
    expect(found.secretDigest).not.toBeNull();
    const revoke = await h.request('/t/acme/oauth2/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`keeper:${issued.clientSecret}`).toString('base64') },
      body: 'token=whatever',
    });
    expect(revoke.status).toBe(200);
  });

  it('PUT issues a secret when a public client becomes confidential, and drops it the other way', async () => {
    await call('POST', `${base}/clients`, client({ clientId: 'flip', tokenEndpointAuthMethod: 'NONE' }));
    const toConfidential = await call('PUT', `${base}/clients/flip`, client({ clientId: 'flip' }));
    expect(toConfidential.body.clientSecret).toEqual(expect.any(String));
    expect(await call('PUT', `${base}/clients/flip`, client({ clientId: 'flip', tokenEndpointAuthMethod: 'NONE' }))).toEqual({ status: 200, body: { clientId: 'flip', clientSecret: null } });
    expect((await h.services.clients.find(acme.tenant.tenant.id, 'flip'))!.secretDigest).toBeNull();
  });

  it.each([
    ['an unknown client', 'ghost', client({ clientId: 'ghost' }), 404, 'unknown_client'],
    ['another client id in the body', 'web', client({ clientId: 'not-web' }), 400, 'invalid_request'],
    ['an unregistered default resource', 'web', client({ clientId: 'web', defaultResource: 'https://nowhere.example' }), 409, 'unknown_client_resource'],
    ['a bad body', 'web', { clientId: 'web' }, 400, 'invalid_request'],
  ])('PUT with %s is %i %s', async (_what, id, body, status, error) => {
    expect(await call('PUT', `${base}/clients/${id}`, body)).toEqual({ status, body: apiError(error) });
  });

  it('PUT of a configurationManaged client is 409 configuration_managed and changes nothing', async () => {
    await call('POST', `${base}/clients`, client({ clientId: 'managed' }));
    await h.changedElsewhere(() => h.sql.run('UPDATE clients SET configuration_managed = 1 WHERE tenant_id = ? AND client_id = ?', [acme.tenant.tenant.id, 'managed']));
    expect(await call('PUT', `${base}/clients/managed`, client({ clientId: 'managed', displayName: 'Changed' }))).toEqual({ status: 409, body: { error: 'configuration_managed' } });
    expect((await h.services.clients.find(acme.tenant.tenant.id, 'managed'))!.displayName).toBe('Portal');
  });

  it("is isolated by tenant: another tenant's client is unknown here", async () => {
    const beta = (await call('POST', '/tenants', { slug: 'beta' })).body;
    expect(await call('PUT', `/tenants/${beta.id}/clients/web`, client({ clientId: 'web' }))).toEqual({ status: 404, body: { error: 'unknown_client' } });
    expect((await call('GET', `/tenants/${beta.id}/clients`)).body.items).toEqual([]);
  });
});

describe('credentials', () => {
  it('POST issues (201, secret once), GET lists without it, DELETE revokes (204) and the secret stops working', async () => {
    const issued = await call('POST', `${base}/credentials`, { resourceUri: API });
    expect(issued).toEqual({ status: 201, body: { credentialId: expect.any(String), credentialSecret: expect.any(String) } });
    const { credentialId, credentialSecret } = issued.body;
    const list = (await call('GET', `${base}/credentials?size=200`)).body;
    expect(list.items).toContainEqual({ credentialId, resourceUri: API, status: 'ACTIVE', createdAt: expect.any(String) });
    expect(JSON.stringify(list)).not.toContain(credentialSecret);
    expect(await h.services.credentials.authenticate(acme.tenant.tenant.id, credentialId, credentialSecret)).toBeDefined();
    expect(await call('DELETE', `${base}/credentials/${credentialId}`)).toEqual({ status: 204, body: null });
    expect((await call('GET', `${base}/credentials?size=200`)).body.items).toContainEqual(expect.objectContaining({ credentialId, status: 'REVOKED' }));
    expect(await h.services.credentials.authenticate(acme.tenant.tenant.id, credentialId, credentialSecret)).toBeUndefined();
    expect(await call('DELETE', `${base}/credentials/${credentialId}`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
  });

  it.each([
    ['POST', '/credentials', { resourceUri: 'https://nowhere.example' }, 400, 'invalid_request'],
    ['POST', '/credentials', {}, 400, 'invalid_request'],
    ['DELETE', '/credentials/not-a-uuid', undefined, 400, 'invalid_request'],
    ['DELETE', '/credentials/00000000-0000-4000-8000-00000000dead', undefined, 409, 'operation_conflict'],
  ])('%s %s with a bad request is %i %s', async (method, path, body, status, error) => {
    expect(await call(method, `${base}${path}`, body)).toEqual({ status, body: apiError(error) });
  });

  it('a configurationManaged credential is 409 configuration_managed and keeps working; so is a managed resource on the CLI path', async () => {
    const { credentialId, credentialSecret } = (await call('POST', `${base}/credentials`, { resourceUri: API })).body;
    await h.changedElsewhere(() => h.sql.run('UPDATE resource_credentials SET configuration_managed = 1 WHERE tenant_id = ? AND id = ?', [acme.tenant.tenant.id, credentialId]));
    expect(await call('DELETE', `${base}/credentials/${credentialId}`)).toEqual({ status: 409, body: { error: 'configuration_managed' } });
    expect(await h.services.credentials.authenticate(acme.tenant.tenant.id, credentialId, credentialSecret)).toBeDefined();
    await call('POST', `${base}/resources`, { uri: 'https://managed.example.com', audience: 'managed', scopes: [] });
    await h.changedElsewhere(() => h.sql.run('UPDATE resources SET configuration_managed = 1 WHERE tenant_id = ? AND uri = ?', [acme.tenant.tenant.id, 'https://managed.example.com']));
    const actor = { subject: 'os:test', clientId: null };
    await expect(h.services.resources.setStatus(acme.tenant.tenant.id, 'https://managed.example.com', 'DISABLED', actor)).rejects.toMatchObject({ code: 'configuration_managed' });
    await expect(h.services.resources.update(acme.tenant.tenant.id, 'https://managed.example.com', { audience: 'x', scopes: [] }, actor)).rejects.toMatchObject({ code: 'configuration_managed' });
  });

  it("cannot revoke another tenant's credential", async () => {
    const beta = (await call('POST', '/tenants', { slug: 'cred-beta' })).body;
    expect(await call('DELETE', `/tenants/${beta.id}/credentials/${acme.credentialId}`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
    expect(await h.services.credentials.authenticate(acme.tenant.tenant.id, acme.credentialId, acme.credentialSecret)).toBeDefined();
  });
});

describe('signing keys', () => {
  const keys = async () => (await call('GET', `${base}/signing-keys?size=200`)).body.items as { keyId: string; state: string }[];
  const stateOf = async (kid: string) => (await keys()).find((k) => k.keyId === kid)?.state;

  it('stage (201), activate (204), retire (204): the CLI lifecycle over HTTP', async () => {
    const active = (await keys()).find((k) => k.state === 'ACTIVE')!.keyId;
    const staged = await call('POST', `${base}/signing-keys`);
    expect(staged).toEqual({ status: 201, body: { keyId: expect.any(String) } });
    const kid = staged.body.keyId;
    expect(await stateOf(kid)).toBe('STAGED');
    const jwks = (await (await h.request('/t/acme/oauth2/jwks')).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(kid);

    expect(await call('POST', `${base}/signing-keys/${kid}/activation`)).toEqual({ status: 204, body: null });
    expect([await stateOf(kid), await stateOf(active)]).toEqual(['ACTIVE', 'RETIRING']);
    expect(await call('POST', `${base}/signing-keys/${kid}/activation`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
    expect(await call('POST', `${base}/signing-keys/${kid}/retirement`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
    expect(await call('POST', `${base}/signing-keys/${active}/retirement`)).toEqual({ status: 204, body: null });
    expect(await stateOf(active)).toBe('RETIRED');
    expect(await call('POST', `${base}/signing-keys/${active}/retirement`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
  });

  it('a staged key can be retired at once; an empty JSON object is a valid body; anything else is 400', async () => {
    const kid = (await call('POST', `${base}/signing-keys`, {})).body.keyId;
    expect(await call('POST', `${base}/signing-keys/${kid}/retirement`)).toEqual({ status: 204, body: null });
    expect(await stateOf(kid)).toBe('RETIRED');
    expect(await call('POST', `${base}/signing-keys`, { algorithm: 'ES256' })).toEqual({ status: 400, body: apiError('invalid_request') });
    expect(await call('POST', `${base}/signing-keys/unknown-kid/activation`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
  });

  it("cannot move another tenant's key", async () => {
    const beta = (await call('POST', '/tenants', { slug: 'key-beta' })).body;
    const kid = (await call('POST', `${base}/signing-keys`)).body.keyId;
    expect(await call('POST', `/tenants/${beta.id}/signing-keys/${kid}/activation`)).toEqual({ status: 409, body: { error: 'operation_conflict' } });
    expect(await stateOf(kid)).toBe('STAGED');
  });
});
