import { digest, safeEqual } from '../../platform/crypto';
import type { Client, ClientService } from '../clients/service';
import type { CredentialService, ResourceServer } from '../credentials/service';
import { invalidClient, invalidRequest } from './errors';
import type { Form } from './form';
import { parseBasic } from './http-auth';
import type { Context, MiddlewareHandler } from 'hono';
import { authorizationOf, principalCheck } from '../../platform/http/guards';
import type { IssuerEnv } from '../issuer';
import { readForm } from './form';

export type ClientEnv = { Variables: IssuerEnv['Variables'] & { client: Client; form: Form } };
export type ResourceServerEnv = { Variables: IssuerEnv['Variables'] & { resourceServer: ResourceServer } };

/** The Authorization header for HTTP Basic; repeated lines are malformed credentials. */
const basicHeader = (c: Parameters<MiddlewareHandler>[0]): string | undefined => {
  const h = authorizationOf(c);
  return h === 'ambiguous' ? 'Basic !' : h;
};

/**
 * Guard of the token and revocation endpoints: reads the form (the client may be named in it)
 * and authenticates the client; the handler gets `client` and `form`.
 */
export function clientGuard(clients: ClientService, realm: string): MiddlewareHandler<ClientEnv> {
  return async (c, next) => {
    const form = await readForm(c);
    c.set('form', form);
    const client = authenticateClient(clients, c.get('tenant').tenant.id, form, basicHeader(c), realm);
    // Synchronous when the catalogue cache holds the client (every request but the first).
    c.set('client', client instanceof Promise ? await client : client);
    await next();
  };
}

/**
 * The guard of introspection and revoke-application-grants, the resource server's Basic
 * credential: run inside the handler (`behind`, platform/http/guards.ts), no layer of its own.
 */
export function resourceServerCheck(credentials: CredentialService, realm: string): (c: Context<ResourceServerEnv>) => void | Promise<void> {
  return principalCheck<ResourceServerEnv, 'resourceServer', ResourceServer>('resourceServer', (c) =>
    authenticateResourceServer(credentials, c.get('tenant').tenant.id, basicHeader(c), realm),
  );
}

/** Compared when the client is unknown or public, so every failure costs the same. */
const NO_DIGEST = digest('no such client');

/**
 * Client authentication at the token and revocation endpoints (spec 02): `none` (client_id in
 * the form) for public clients, `client_secret_basic` for confidential ones, nothing else.
 * Hot path: answers synchronously when the catalogue cache holds the client, else a Promise.
 */
export function authenticateClient(clients: ClientService, tenantId: string, form: Form, authorization: string | undefined, realm: string): Client | Promise<Client> {
  const basic = parseBasic(authorization);
  if (form.get('client_secret') !== null) throw invalidClient('client_secret_post is not supported; use HTTP Basic', basic ? realm : undefined);
  if (basic === 'malformed') throw invalidClient('malformed client credentials', realm);
  if (basic) {
    const formId = form.get('client_id');
    if (formId !== null && formId !== basic.id) throw invalidRequest('client_id does not match the authenticated client');
    const secret = basic.secret;
    const cached = clients.cached(tenantId, basic.id);
    return cached ? checkConfidential(cached, secret, realm) : clients.find(tenantId, basic.id).then((client) => checkConfidential(client, secret, realm));
  }
  const clientId = form.get('client_id');
  // RFC 6749 §5.2: no client authentication at all is invalid_client (401), with a challenge.
  if (clientId === null) throw invalidClient('client authentication required', realm);
  const cached = clients.cached(tenantId, clientId);
  return cached ? checkPublic(cached) : clients.find(tenantId, clientId).then(checkPublic);
}

/** client_secret_basic: the same digest comparison whether or not the client exists. */
function checkConfidential(client: Client | undefined, secret: string, realm: string): Client {
  const matches = safeEqual(digest(secret), client?.secretDigest ?? NO_DIGEST);
  if (!client || !matches || client.status !== 'ACTIVE' || client.tokenEndpointAuthMethod !== 'CLIENT_SECRET_BASIC') {
    throw invalidClient('client authentication failed', realm);
  }
  return client;
}

/** `none`: a public client named by client_id. */
function checkPublic(client: Client | undefined): Client {
  if (!client || client.status !== 'ACTIVE') throw invalidClient('client authentication failed');
  if (client.tokenEndpointAuthMethod !== 'NONE') throw invalidClient('this client must authenticate with HTTP Basic');
  return client;
}

/** Resource-server HTTP Basic credentials (introspection, revoke-application-grants). */
export function authenticateResourceServer(credentials: CredentialService, tenantId: string, authorization: string | undefined, realm: string): ResourceServer | Promise<ResourceServer> {
  const basic = parseBasic(authorization);
  if (!basic || basic === 'malformed') throw invalidClient('resource server authentication failed', realm);
  const checked = (rs: ResourceServer | undefined): ResourceServer => {
    if (!rs) throw invalidClient('resource server authentication failed', realm);
    return rs;
  };
  // Synchronous when the catalogue cache holds the credential (introspection's hot path).
  const cached = credentials.cached(tenantId, basic.id);
  if (cached) return checked(credentials.verify(cached, basic.secret));
  return credentials.find(tenantId, basic.id).then((row) => checked(credentials.verify(row, basic.secret)));
}
