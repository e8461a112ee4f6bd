import type { Client } from '../../clients/service';
import { CLIENT_CREDENTIALS } from '../../clients/schemas';
import type { Resource } from '../../resources/service';
import type { ResolvedTenant } from '../../tenants/service';
import { resourceAvailable } from '../authorization-request';
import type { OAuthContext } from '../context';
import { invalidRequest, invalidScope, invalidTarget, unauthorizedClient, unsupportedGrantType } from '../errors';
import { OIDC_SCOPES, SCOPE_TOKEN, formatScope, parseScope } from '../scopes';
import { tokenResponse, type TokenResponse } from './common';

/**
 * grant_type=client_credentials (RFC 6749 §4.4, issue 23): a machine client's own access token.
 * Opt-in per client (grantTypes), confidential clients only (§4.4.2: "MUST only be used by
 * confidential clients"). The token has no user: sub is the client id, no grant, no refresh
 * token (§4.4.3: "SHOULD NOT be included"), no ID token. Scope and resource follow the
 * authorization request's rules (authorization-request.ts), with one difference: a machine
 * token is only good at a resource, so a resource (asked or the client's default) is required.
 */

export interface ClientCredentialsInput {
  /** Null: every scope the client registered that the resource offers (RFC 6749 §3.3, a pre-defined default). */
  scope: string | null;
  resource: string | null;
}

export const clientCredentialsParameters = ['scope', 'resource'] as const;

export function createClientCredentialsGrant(ctx: OAuthContext) {
  const { tokens, resources, clients, users } = ctx;

  /**
   * The client may use this grant (a public client can never have opted in: registration
   * refuses it). While no client of the tenant opted in, the tenant does not offer the grant at
   * all, as its discovery says: spec 02's unsupported_grant_type.
   */
  async function checkClient(tenantId: string, client: Client): Promise<void> {
    if (!(await clients.grantsOffered(tenantId)).has(CLIENT_CREDENTIALS)) throw unsupportedGrantType('grant_type client_credentials is not supported');
    if (client.tokenEndpointAuthMethod !== 'CLIENT_SECRET_BASIC') throw unauthorizedClient('client_credentials is for confidential clients only');
    if (!client.grantTypes.includes(CLIENT_CREDENTIALS)) throw unauthorizedClient('the client is not registered for client_credentials');
  }

  /** The requested scope: well-formed, no OpenID Connect scope (there is no user), registered for the client. */
  function requestedScope(raw: string, client: Client): string[] {
    const scope = parseScope(raw);
    if (scope.length === 0 || !scope.every((s) => SCOPE_TOKEN.test(s))) throw invalidRequest('scope is malformed');
    const oidc = scope.filter((s) => OIDC_SCOPES.has(s));
    if (oidc.length) throw invalidScope(`a client credentials token has no user: ${oidc.join(' ')} cannot be granted`);
    const registered = new Set(client.scopes);
    const missing = scope.filter((s) => !registered.has(s));
    if (missing.length) throw invalidScope(`scope not registered for the client: ${missing.join(' ')}`);
    return scope;
  }

  /** RFC 8707: the resource asked for, or the client's default; available as for an authorization request. */
  async function targetResource(tenantId: string, client: Client, requested: string | null, scope: string[] | null): Promise<Resource> {
    if (requested !== null && (requested.includes('#') || !URL.canParse(requested))) throw invalidTarget('resource must be an absolute URI without a fragment');
    const uri = requested ?? client.defaultResource;
    if (uri === null) {
      if (scope) {
        // As at authorization: a scope no resource offers is unknown (invalid_scope), not a missing target.
        const offered = new Set((await resources.list(tenantId)).flatMap((r) => r.scopes));
        const unknown = scope.filter((s) => !offered.has(s));
        if (unknown.length) throw invalidScope(`scope is not a resource's: ${unknown.join(' ')}`);
      }
      throw invalidTarget('client_credentials needs a resource: send resource or register the client\'s defaultResource');
    }
    const resource = resources.cachedByUri(tenantId, uri) ?? (await resources.findByUri(tenantId, uri));
    if (!resourceAvailable(client, resource)) throw invalidTarget(`resource ${uri} is not available to the client`);
    return resource;
  }

  return {
    async clientCredentials(tenant: ResolvedTenant, client: Client, input: ClientCredentialsInput): Promise<TokenResponse> {
      const tenantId = tenant.tenant.id;
      await checkClient(tenantId, client);
      const asked = input.scope === null ? null : requestedScope(input.scope, client);
      const resource = await targetResource(tenantId, client, input.resource, asked);
      const offered = new Set(resource.scopes);
      let scope: string[];
      if (asked) {
        const foreign = asked.filter((s) => !offered.has(s));
        if (foreign.length) throw invalidScope(`scope not offered by ${resource.uri}: ${foreign.join(' ')}`);
        scope = asked;
      } else {
        scope = client.scopes.filter((s) => offered.has(s));
        if (scope.length === 0) throw invalidScope(`the client registered no scope that ${resource.uri} offers`);
      }
      // The token's sub is the client id: never one a user of the tenant has as subject, or a
      // resource server that authorizes on sub would take the machine for that person.
      if (await users.findBySubject(tenantId, client.clientId)) throw unauthorizedClient('the client id is a user\'s subject in this tenant; register the client under another id');
      const issued = await tokens.issueForClient({ tenant, clientId: client.clientId, scope, audience: resource.audience });
      return tokenResponse(issued, formatScope(scope));
    },
  };
}
