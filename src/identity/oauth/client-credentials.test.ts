import * as oidc from 'openid-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { API, API_AUDIENCE, basic, createFixture, decodeJwt, exchange, form, post, type OAuthFixture } from '../../../test/fixtures/oauth';
import { applyConfiguration } from '../operators/apply';
import type { ApplyFile } from '../operators/apply-schema';
import { cliActor } from '../audit';
import { createAdminFixture } from '../../../test/helpers/admin';

/**
 * Issue 23 point 7: the client credentials grant (RFC 6749 §4.4), opt-in per confidential
 * client. The token has no user (sub = client id), no refresh token and no ID token; discovery
 * names the grant only once a client of the tenant registered it.
 */

let h: Harness;
let f: OAuthFixture;
let machineSecret: string;
beforeEach(async () => {
  h = await createHarness();
  f = await createFixture(h);
  machineSecret = (await h.services.clients.create(tenantId(), {
    clientId: 'batch', displayName: 'Batch', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
    redirectUris: ['https://batch.example.com/cb'], scopes: ['api.read', 'api.write'], grantTypes: ['client_credentials'],
  }, cliActor())).clientSecret!;
});
afterEach(() => h.close());

const tenantId = () => f.tenant.tenant.id;
const tokenPath = () => `${f.issuerPath}/oauth2/token`;
const discovery = async (path = '/.well-known/openid-configuration') => (await (await h.request(`${f.issuerPath}${path}`)).json()) as Record<string, unknown>;
const grant = (fields: Record<string, string>, id = 'batch', secret = machineSecret) =>
  post(h, tokenPath(), form({ grant_type: 'client_credentials', ...fields }), { authorization: basic(id, secret) });
const introspect = async (token: string) =>
  (await (await post(h, `${f.issuerPath}/oauth2/introspect`, form({ token }), { authorization: basic(f.credentialId, f.credentialSecret) })).json()) as Record<string, unknown>;

/** openid-client against the in-process app (its fetch is the app's). */
async function relyingParty(secret = machineSecret): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(f.tenant.issuer), 'batch', {}, oidc.ClientSecretBasic(secret), {
    execute: [oidc.allowInsecureRequests],
    [oidc.customFetch]: async (url: string, init: RequestInit) => h.app.request(url, init),
  });
}

describe('client credentials grant', () => {
  it('discovery lists client_credentials only while an ACTIVE client of the tenant registered it; else unsupported_grant_type', async () => {
    expect((await discovery()).grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
    expect((await discovery('/.well-known/oauth-authorization-server')).grant_types_supported).toContain('client_credentials');
    await h.services.clients.setStatus(tenantId(), 'batch', 'DISABLED', cliActor());
    expect((await discovery()).grant_types_supported).toEqual(['authorization_code', 'refresh_token']);
    await h.services.clients.setStatus(tenantId(), 'batch', 'ACTIVE', cliActor());
    await h.services.clients.update(tenantId(), 'batch', { grantTypes: [] }, cliActor());
    expect(await discovery()).toEqual(expect.objectContaining({ grant_types_supported: ['authorization_code', 'refresh_token'] }));
    expect(Object.keys(await discovery())).not.toContain('device_authorization_endpoint');
    // No client of the tenant opted in: the grant is not offered at all (spec 02's answer).
    const res = await grant({ resource: API });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('openid-client gets a token for the resource; introspection shows the client as subject; revocation ends it', async () => {
    const rp = await relyingParty();
    const tokens = await oidc.clientCredentialsGrant(rp, { scope: 'api.read', resource: API });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('api.read');
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toBeUndefined();
    const claims = decodeJwt(tokens.access_token).payload;
    expect(claims).toMatchObject({ sub: 'batch', client_id: 'batch', aud: API_AUDIENCE, scope: 'api.read', iss: f.tenant.issuer });
    expect(claims).not.toHaveProperty('gid');

    expect(await introspect(tokens.access_token)).toEqual({
      active: true, scope: 'api.read', client_id: 'batch', token_type: 'Bearer', sub: 'batch', aud: API_AUDIENCE, iss: f.tenant.issuer,
      iat: claims.iat, exp: claims.exp, jti: claims.jti,
    });
    // Userinfo: there is no user.
    const info = await h.request(`${f.issuerPath}/oauth2/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(401);
    expect(await info.json()).toEqual({ error: 'invalid_token' });

    await oidc.tokenRevocation(rp, tokens.access_token);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
  });

  it('without scope: every scope the client registered that its resource offers; the default resource applies', async () => {
    await h.services.clients.update(tenantId(), 'batch', { grantTypes: ['client_credentials'] }, cliActor());
    const res = await grant({ resource: API });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body.scope).toBe('api.read api.write');
  });

  it('a client no longer registered for the grant has its tokens go inactive', async () => {
    const token = ((await (await grant({ resource: API, scope: 'api.write' })).json()) as { access_token: string }).access_token;
    expect((await introspect(token)).active).toBe(true);
    await h.services.clients.update(tenantId(), 'batch', { grantTypes: [] }, cliActor());
    expect(await introspect(token)).toEqual({ active: false });
  });

  it('refuses what the table says', async () => {
    const rows: [string, () => Promise<Response>, number, string][] = [
      ['client not opted in', () => grant({ resource: API }, f.webClient, f.webSecret), 400, 'unauthorized_client'],
      ['public client', () => post(h, tokenPath(), form({ grant_type: 'client_credentials', client_id: f.publicClient, resource: API })), 400, 'unauthorized_client'],
      ['wrong secret', () => grant({ resource: API }, 'batch', 'x'.repeat(43)), 401, 'invalid_client'],
      ['no client authentication', () => post(h, tokenPath(), form({ grant_type: 'client_credentials', resource: API })), 401, 'invalid_client'],
      ['OpenID Connect scope', () => grant({ resource: API, scope: 'openid api.read' }), 400, 'invalid_scope'],
      ['offline_access', () => grant({ resource: API, scope: 'offline_access' }), 400, 'invalid_scope'],
      ['scope not registered', () => grant({ resource: API, scope: 'api.admin' }), 400, 'invalid_scope'],
      ['unknown scope without a resource', () => grant({ scope: 'api.read nope' }), 400, 'invalid_scope'],
      ['no resource at all', () => grant({ scope: 'api.read' }), 400, 'invalid_target'],
      ['unknown resource', () => grant({ resource: 'https://other.example.com' }), 400, 'invalid_target'],
      ['resource with a fragment', () => grant({ resource: `${API}#x` }), 400, 'invalid_target'],
      ['malformed scope', () => grant({ resource: API, scope: 'api.read "x' }), 400, 'invalid_request'],
    ];
    for (const [name, send, status, error] of rows) {
      const res = await send();
      expect([name, res.status]).toEqual([name, status]);
      const body = (await res.json()) as Record<string, unknown>;
      expect([name, body.error]).toEqual([name, error]);
    }
  });

  it('openid-client sees unauthorized_client for a client not registered for the grant', async () => {
    const rp = await oidc.discovery(new URL(f.tenant.issuer), f.webClient, {}, oidc.ClientSecretBasic(f.webSecret), {
      execute: [oidc.allowInsecureRequests],
      [oidc.customFetch]: async (url: string, init: RequestInit) => h.app.request(url, init),
    });
    await expect(oidc.clientCredentialsGrant(rp, { resource: API })).rejects.toMatchObject({ error: 'unauthorized_client' });
  });

  it('a client whose id is a user\'s subject gets no token: its sub would pass for that user (outside review)', async () => {
    const secret = (await h.services.clients.create(f.tenant.tenant.id, {
      clientId: f.subject, displayName: 'Look-alike', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: ['https://app.example.com/cb'], scopes: ['api.read'], grantTypes: ['client_credentials'],
    }, cliActor())).clientSecret!;
    const res = await post(h, `${f.issuerPath}/oauth2/token`, form({ grant_type: 'client_credentials', resource: API }), { authorization: basic(f.subject, secret) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('unauthorized_client');
  });

  it('machine tokens are not accepted by the management API (it authorizes users)', async () => {
    const res = await grant({ resource: API });
    const token = ((await res.json()) as { access_token: string }).access_token;
    expect(await h.services.oauth.liveAccessToken(f.tenant, token)).toBeUndefined();
  });

  it('registration: confidential clients only; the view lists grantTypes; apply plans and sets it', async () => {
    await expect(
      h.services.clients.create(tenantId(), {
        clientId: 'cli', displayName: 'CLI', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'EXPLICIT',
        redirectUris: ['http://127.0.0.1/cb'], scopes: ['api.read'], grantTypes: ['client_credentials'],
      }, cliActor()),
    ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('grantTypes') });
    await expect(h.services.clients.update(tenantId(), 'mobile', { grantTypes: ['client_credentials'] }, cliActor())).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(h.services.clients.update(tenantId(), 'batch', { grantTypes: ['password' as never] }, cliActor())).rejects.toMatchObject({ code: 'invalid_request' });
    const views = await h.services.clients.list(tenantId());
    expect(views.find((c) => c.clientId === 'batch')!.grantTypes).toEqual(['client_credentials']);
    expect(views.find((c) => c.clientId === 'web')!.grantTypes).toEqual([]);

    const file: ApplyFile = {
      version: 1,
      tenants: [{
        slug: 'beta',
        resources: [{ uri: API, audience: API_AUDIENCE, scopes: ['api.read'] }],
        clients: [{
          clientId: 'job', displayName: 'Job', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
          redirectUris: ['https://job.example.com/cb'], scopes: ['api.read'], defaultResource: API, grantTypes: ['client_credentials'],
        }],
      }],
    };
    await applyConfiguration(h.services, file, { dryRun: false, env: {}, actor: cliActor() });
    const beta = (await h.services.tenants.resolveByPath('beta'))!;
    expect((await h.services.clients.list(beta.tenant.id))[0].grantTypes).toEqual(['client_credentials']);
    const again = await applyConfiguration(h.services, file, { dryRun: true, env: {}, actor: cliActor() });
    expect(JSON.stringify(again)).not.toContain('grantTypes');
    file.tenants![0].clients![0].grantTypes = [];
    const plan = await applyConfiguration(h.services, file, { dryRun: true, env: {}, actor: cliActor() });
    expect(JSON.stringify(plan)).toContain('grantTypes');
  });

  it('the management API takes grantTypes as an optional extension of the client body', async () => {
    const admin = await createAdminFixture(h);
    const token = await admin.token();
    const body = {
      clientId: 'etl', displayName: 'ETL', applicationType: 'WEB', tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: ['https://etl.example.com/cb'], scopes: ['api.read'], defaultResource: API, grantTypes: ['client_credentials'],
    };
    const created = await admin.call('POST', `/tenants/${tenantId()}/clients`, token, body);
    expect(created.status).toBe(201);
    const secret = ((await created.json()) as { clientSecret: string }).clientSecret;
    const page = (await (await admin.call('GET', `/tenants/${tenantId()}/clients?size=200`, token)).json()) as { items: { clientId: string; grantTypes: string[] }[] };
    expect(page.items.find((c) => c.clientId === 'etl')!.grantTypes).toEqual(['client_credentials']);
    expect(page.items.find((c) => c.clientId === 'web')!.grantTypes).toEqual([]);
    expect((await grant({}, 'etl', secret)).status).toBe(200);
    // A PUT without it clears it (PUT replaces every setting).
    const { grantTypes: _g, ...rest } = body;
    expect((await admin.call('PUT', `/tenants/${tenantId()}/clients/etl`, token, rest)).status).toBe(200);
    expect((await grant({}, 'etl', secret)).status).toBe(400);
    const bad = await admin.call('POST', `/tenants/${tenantId()}/clients`, token, { ...body, clientId: 'pub', tokenEndpointAuthMethod: 'NONE' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('grantTypes') });
  });

  it('user tokens are unchanged: a code exchange still has gid and a user subject', async () => {
    const t = await exchange(h, f);
    expect(decodeJwt(t.access_token).payload).toMatchObject({ sub: f.subject, client_id: 'mobile' });
    expect(decodeJwt(t.access_token).payload).toHaveProperty('gid');
    expect((await introspect(t.access_token)).sub).toBe(f.subject);
    expect(PUBLIC_URL).toContain('engage.test');
  });
});
