import type { Hono } from 'hono';
import type { Services } from '../../services';
import { actor, type AdminEnv, type AdminGuard } from './guards';
import { adminDoc, envelope, inTenant, json, PAGED, route, TENANT } from './routing';
import {
  ADMIN_SCOPES, ClientIdParam, ClientInput, ClientIssuance, ClientPage, CredentialIdParam, CredentialIssuance, CredentialIssue, CredentialPage, KeyIdParam,
  Resource, ResourceInput, ResourcePage, SigningKeyPage, StagedKey, checkKeyStage,
} from './schemas';

/** Resources, clients, resource-server credentials and signing keys of a tenant (spec 03). */
export function mountCatalogRoutes(admin: Hono<AdminEnv>, guard: AdminGuard, services: Services): void {
  const deps = { services };
  const read = guard(ADMIN_SCOPES.read);
  const manage = guard(ADMIN_SCOPES.manage);

  admin.get('/tenants/:tenantId/resources', read, inTenant(deps), route(
    adminDoc("A page of the tenant's resources", { params: TENANT, ...PAGED, responses: { 200: json(ResourcePage, 'a page of resources') }, errors: { 400: 'invalid_request' } }),
    async (c, { query: q }) => envelope(c, q, await services.resources.page(inTenant.of(c).tenant.id, q.page, q.size)),
  ));

  admin.post('/tenants/:tenantId/resources', manage, inTenant(deps), route(
    adminDoc('Register a resource (RFC 8707 resource indicator)', {
      params: TENANT, body: { schema: ResourceInput }, responses: { 201: json(Resource, 'the resource') }, errors: { 400: 'invalid_request', 409: 'resource_conflict' },
    }),
    async (c, { body }) => c.json(await services.resources.create(inTenant.of(c).tenant.id, body, actor(c)), 201),
  ));

  admin.get('/tenants/:tenantId/clients', read, inTenant(deps), route(
    adminDoc("A page of the tenant's clients (never their secrets)", { params: TENANT, ...PAGED, responses: { 200: json(ClientPage, 'a page of client metadata') }, errors: { 400: 'invalid_request' } }),
    async (c, { query: q }) => envelope(c, q, await services.clients.page(inTenant.of(c).tenant.id, q.page, q.size)),
  ));

  admin.post('/tenants/:tenantId/clients', manage, inTenant(deps), route(
    adminDoc("Register a client; a confidential client's secret is returned here only", {
      params: TENANT, body: { schema: ClientInput }, responses: { 201: json(ClientIssuance, 'the issuance response') },
      errors: { 400: 'invalid_request', 409: 'client_conflict, unknown_client_resource' },
    }),
    async (c, { body }) => c.json(await services.clients.create(inTenant.of(c).tenant.id, body, actor(c)), 201),
  ));

  admin.put('/tenants/:tenantId/clients/:clientId', manage, inTenant(deps), route(
    adminDoc('Replace a client (same body as creation; the secret is kept: clientSecret null unless one is issued now)', {
      params: { ...TENANT, clientId: ClientIdParam }, body: { schema: ClientInput }, responses: { 200: json(ClientIssuance, 'the issuance response') },
      errors: { 400: 'invalid_request', 404: 'unknown_client', 409: 'configuration_managed, unknown_client_resource' },
    }),
    async (c, { params, body }) => c.json(await services.clients.replace(inTenant.of(c).tenant.id, params.clientId, body, actor(c))),
  ));

  admin.get('/tenants/:tenantId/credentials', read, inTenant(deps), route(
    adminDoc("A page of the tenant's resource-server credentials (never their secrets)", {
      params: TENANT, ...PAGED, responses: { 200: json(CredentialPage, 'a page of credentials') }, errors: { 400: 'invalid_request' },
    }),
    async (c, { query: q }) => envelope(c, q, await services.credentials.page(inTenant.of(c).tenant.id, q.page, q.size)),
  ));

  admin.post('/tenants/:tenantId/credentials', manage, inTenant(deps), route(
    adminDoc('Issue a resource-server credential; its secret is returned here only', {
      params: TENANT, body: { schema: CredentialIssue }, responses: { 201: json(CredentialIssuance, 'the issuance response') }, errors: { 400: 'invalid_request' },
    }),
    async (c, { body }) => c.json(await services.credentials.issue(inTenant.of(c).tenant.id, body.resourceUri, actor(c)), 201),
  ));

  admin.delete('/tenants/:tenantId/credentials/:credentialId', manage, inTenant(deps, 'credentialId'), route(
    adminDoc('Revoke a credential at once (it stays listed as REVOKED)', {
      params: { ...TENANT, credentialId: CredentialIdParam }, responses: { 204: { description: 'revoked' } },
      errors: { 400: 'invalid_request', 409: 'operation_conflict (unknown or already revoked)' },
    }),
    async (c) => {
      const { tenant, ids } = inTenant.of(c);
      await services.credentials.revoke(tenant.id, ids.credentialId, actor(c));
      return c.body(null, 204);
    },
  ));

  admin.get('/tenants/:tenantId/signing-keys', read, inTenant(deps), route(
    adminDoc("A page of the tenant's signing keys", { params: TENANT, ...PAGED, responses: { 200: json(SigningKeyPage, 'a page of signing keys') }, errors: { 400: 'invalid_request' } }),
    async (c, { query: q }) => envelope(c, q, await services.keys.page(inTenant.of(c).tenant.id, q.page, q.size)),
  ));

  // Its body may be absent, or an empty JSON object (spec 03 shows none).
  admin.post('/tenants/:tenantId/signing-keys', manage, inTenant(deps), route(
    adminDoc('Stage a new signing key (published in JWKS, not signing until activated)', {
      params: TENANT, body: { schema: checkKeyStage.schema, required: false }, responses: { 201: json(StagedKey, 'the staged key id') }, errors: { 400: 'invalid_request' },
    }),
    async (c) => c.json({ keyId: (await services.keys.stage(inTenant.of(c).tenant.id, actor(c))).keyId }, 201),
  ));

  const KEY = { ...TENANT, keyId: KeyIdParam };
  admin.post('/tenants/:tenantId/signing-keys/:keyId/activation', manage, inTenant(deps), route(
    adminDoc('Activate a STAGED key: it signs from now on, and the previous ACTIVE key becomes RETIRING', {
      params: KEY, responses: { 204: { description: 'activated' } }, errors: { 400: 'invalid_request', 409: 'operation_conflict' },
    }),
    async (c, { params }) => {
      await services.keys.activate(inTenant.of(c).tenant.id, params.keyId, actor(c));
      return c.body(null, 204);
    },
  ));

  admin.post('/tenants/:tenantId/signing-keys/:keyId/retirement', manage, inTenant(deps), route(
    adminDoc('Retire a STAGED or RETIRING key (RETIRED: no longer published; never the ACTIVE key)', {
      params: KEY, responses: { 204: { description: 'retired' } }, errors: { 400: 'invalid_request', 409: 'operation_conflict' },
    }),
    async (c, { params }) => {
      await services.keys.retire(inTenant.of(c).tenant.id, params.keyId, actor(c));
      return c.body(null, 204);
    },
  ));

  admin.post('/tenants/:tenantId/signing-keys/:keyId/revocation', manage, inTenant(deps), route(
    adminDoc('Revoke a key at once, after a compromise (REVOKED: no longer published, tokens it signed are refused; never the ACTIVE key: activate another first)', {
      params: KEY, responses: { 204: { description: 'revoked' } }, errors: { 400: 'invalid_request', 409: 'operation_conflict (the ACTIVE key, an unknown or a REVOKED key)' },
    }),
    async (c, { params }) => {
      await services.keys.revoke(inTenant.of(c).tenant.id, params.keyId, actor(c));
      return c.body(null, 204);
    },
  ));
}
