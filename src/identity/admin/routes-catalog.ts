import type { Hono } from 'hono';
import { described } from '../../platform/http/openapi';
import { readPage } from '../../platform/http/pagination';
import { checker } from '../../platform/http/schema';
import type { Services } from '../../services';
import { actor, jsonBody, optionalJsonBody, uuidParam, type AdminEnv, type AdminGuard } from './guards';
import { adminDoc, envelope, json, PAGED, pathTenant, TENANT } from './routing';
import {
  ADMIN_SCOPES, ClientIdParam, ClientInput, ClientIssuance, ClientPage, CredentialIdParam, CredentialIssuance, CredentialIssue, CredentialPage, KeyIdParam,
  Resource, ResourceInput, ResourcePage, SigningKeyPage, StagedKey, checkKeyStage,
} from './schemas';

const check = { resource: checker(ResourceInput), client: checker(ClientInput), credential: checker(CredentialIssue) };

/** Resources, clients, resource-server credentials and signing keys of a tenant (spec 03). */
export function mountCatalogRoutes(admin: Hono<AdminEnv>, guard: AdminGuard, services: Services): void {
  const deps = { services };
  const read = guard(ADMIN_SCOPES.read);
  const manage = guard(ADMIN_SCOPES.manage);

  admin.get('/tenants/:tenantId/resources', read, described(
    adminDoc("A page of the tenant's resources", { params: TENANT, ...PAGED, responses: { 200: json(ResourcePage, 'a page of resources') }, errors: { 400: 'invalid_request' } }),
    async (c) => {
      const t = await pathTenant(c, deps);
      const q = readPage(c);
      return envelope(c, q, await services.resources.page(t.id, q.page, q.size));
    },
  ));

  admin.post('/tenants/:tenantId/resources', manage, described(
    adminDoc('Register a resource (RFC 8707 resource indicator)', {
      params: TENANT, body: { schema: ResourceInput }, responses: { 201: json(Resource, 'the resource') }, errors: { 400: 'invalid_request', 409: 'resource_conflict' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      return c.json(await services.resources.create(t.id, await jsonBody(c, check.resource), actor(c)), 201);
    },
  ));

  admin.get('/tenants/:tenantId/clients', read, described(
    adminDoc("A page of the tenant's clients (never their secrets)", { params: TENANT, ...PAGED, responses: { 200: json(ClientPage, 'a page of client metadata') }, errors: { 400: 'invalid_request' } }),
    async (c) => {
      const t = await pathTenant(c, deps);
      const q = readPage(c);
      return envelope(c, q, await services.clients.page(t.id, q.page, q.size));
    },
  ));

  admin.post('/tenants/:tenantId/clients', manage, described(
    adminDoc("Register a client; a confidential client's secret is returned here only", {
      params: TENANT, body: { schema: ClientInput }, responses: { 201: json(ClientIssuance, 'the issuance response') },
      errors: { 400: 'invalid_request', 409: 'client_conflict, unknown_client_resource' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      return c.json(await services.clients.create(t.id, await jsonBody(c, check.client), actor(c)), 201);
    },
  ));

  admin.put('/tenants/:tenantId/clients/:clientId', manage, described(
    adminDoc('Replace a client (same body as creation; the secret is kept: clientSecret null unless one is issued now)', {
      params: { ...TENANT, clientId: ClientIdParam }, body: { schema: ClientInput }, responses: { 200: json(ClientIssuance, 'the issuance response') },
      errors: { 400: 'invalid_request', 404: 'unknown_client', 409: 'configuration_managed, unknown_client_resource' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      return c.json(await services.clients.replace(t.id, c.req.param('clientId') ?? '', await jsonBody(c, check.client), actor(c)));
    },
  ));

  admin.get('/tenants/:tenantId/credentials', read, described(
    adminDoc("A page of the tenant's resource-server credentials (never their secrets)", {
      params: TENANT, ...PAGED, responses: { 200: json(CredentialPage, 'a page of credentials') }, errors: { 400: 'invalid_request' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      const q = readPage(c);
      return envelope(c, q, await services.credentials.page(t.id, q.page, q.size));
    },
  ));

  admin.post('/tenants/:tenantId/credentials', manage, described(
    adminDoc('Issue a resource-server credential; its secret is returned here only', {
      params: TENANT, body: { schema: CredentialIssue }, responses: { 201: json(CredentialIssuance, 'the issuance response') }, errors: { 400: 'invalid_request' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      const body = await jsonBody(c, check.credential);
      return c.json(await services.credentials.issue(t.id, body.resourceUri, actor(c)), 201);
    },
  ));

  admin.delete('/tenants/:tenantId/credentials/:credentialId', manage, described(
    adminDoc('Revoke a credential at once (it stays listed as REVOKED)', {
      params: { ...TENANT, credentialId: CredentialIdParam }, responses: { 204: { description: 'revoked' } },
      errors: { 400: 'invalid_request', 409: 'operation_conflict (unknown or already revoked)' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      await services.credentials.revoke(t.id, uuidParam(c, 'credentialId'), actor(c));
      return c.body(null, 204);
    },
  ));

  admin.get('/tenants/:tenantId/signing-keys', read, described(
    adminDoc("A page of the tenant's signing keys", { params: TENANT, ...PAGED, responses: { 200: json(SigningKeyPage, 'a page of signing keys') }, errors: { 400: 'invalid_request' } }),
    async (c) => {
      const t = await pathTenant(c, deps);
      const q = readPage(c);
      return envelope(c, q, await services.keys.page(t.id, q.page, q.size));
    },
  ));

  admin.post('/tenants/:tenantId/signing-keys', manage, described(
    adminDoc('Stage a new signing key (published in JWKS, not signing until activated)', {
      params: TENANT, body: { schema: checkKeyStage.schema, required: false }, responses: { 201: json(StagedKey, 'the staged key id') }, errors: { 400: 'invalid_request' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      await optionalJsonBody(c, checkKeyStage);
      return c.json({ keyId: (await services.keys.stage(t.id, actor(c))).keyId }, 201);
    },
  ));

  const KEY = { ...TENANT, keyId: KeyIdParam };
  admin.post('/tenants/:tenantId/signing-keys/:keyId/activation', manage, described(
    adminDoc('Activate a STAGED key: it signs from now on, and the previous ACTIVE key becomes RETIRING', {
      params: KEY, responses: { 204: { description: 'activated' } }, errors: { 400: 'invalid_request', 409: 'operation_conflict' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      await services.keys.activate(t.id, c.req.param('keyId') ?? '', actor(c));
      return c.body(null, 204);
    },
  ));

  admin.post('/tenants/:tenantId/signing-keys/:keyId/retirement', manage, described(
    adminDoc('Retire a STAGED or RETIRING key (RETIRED: no longer published; never the ACTIVE key)', {
      params: KEY, responses: { 204: { description: 'retired' } }, errors: { 400: 'invalid_request', 409: 'operation_conflict' },
    }),
    async (c) => {
      const t = await pathTenant(c, deps);
      await services.keys.retire(t.id, c.req.param('keyId') ?? '', actor(c));
      return c.body(null, 204);
    },
  ));
}
