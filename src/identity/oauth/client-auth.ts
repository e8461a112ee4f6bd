import { digest, safeEqual } from '../../platform/crypto';
import type { Client, ClientService } from '../clients/service';
import type { CredentialService, ResourceServer } from '../credentials/service';
import { invalidClient, invalidRequest } from './errors';
import type { Form } from './form';
import { parseBasic } from './http-auth';
import type { MiddlewareHandler } from 'hono';
import { authorizationOf } from '../../platform/http/guards';
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
    c.set('client', authenticateClient(clients, c.get('tenant').tenant.id, form, basicHeader(c), realm));
    await next();
  };
}

/** Guard of introspection and revoke-application-grants: the resource server's Basic credential. */
export function resourceServerGuard(credentials: CredentialService, realm: string): MiddlewareHandler<ResourceServerEnv> {
  return async (c, next) => {
    c.set('resourceServer', authenticateResourceServer(credentials, c.get('tenant').tenant.id, basicHeader(c), realm));
    await next();
  };
}

/** Compared when the client is unknown or public, so every failure costs the same. */
const NO_DIGEST = digest('no such client');

/**
 * Client authentication at the token and revocation endpoints (spec 02): `none` (client_id in
 * the form) for public clients, `client_secret_basic` for confidential ones, nothing else.
 */
export function authenticateClient(clients: ClientService, tenantId: string, form: Form, authorization: string | undefined, realm: string): Client {
  const basic = parseBasic(authorization);
  if (form.get('client_secret') !== null) throw invalidClient('client_secret_post is not supported; use HTTP Basic', basic ? realm : undefined);
  if (basic === 'malformed') throw invalidClient('malformed client credentials', realm);
  if (basic) {
    const formId = form.get('client_id');
    if (formId !== null && formId !== basic.id) throw invalidRequest('client_id does not match the authenticated client');
    const client = clients.find(tenantId, basic.id);
    const matches = safeEqual(digest(basic.secret), client?.secretDigest ?? NO_DIGEST);
    if (!client || !matches || client.status !== 'ACTIVE' || client.tokenEndpointAuthMethod !== 'CLIENT_SECRET_BASIC') {
      throw invalidClient('client authentication failed', realm);
    }
    return client;
  }
  const clientId = form.get('client_id');
  // RFC 6749 §5.2: no client authentication at all is invalid_client (401), with a challenge.
  if (clientId === null) throw invalidClient('client authentication required', realm);
  const client = clients.find(tenantId, clientId);
  if (!client || client.status !== 'ACTIVE') throw invalidClient('client authentication failed');
  if (client.tokenEndpointAuthMethod !== 'NONE') throw invalidClient('this client must authenticate with HTTP Basic');
  return client;
}

/** Resource-server HTTP Basic credentials (introspection, revoke-application-grants). */
export function authenticateResourceServer(credentials: CredentialService, tenantId: string, authorization: string | undefined, realm: string): ResourceServer {
  const basic = parseBasic(authorization);
  const rs = basic && basic !== 'malformed' ? credentials.authenticate(tenantId, basic.id, basic.secret) : undefined;
  if (!rs) throw invalidClient('resource server authentication failed', realm);
  return rs;
}
