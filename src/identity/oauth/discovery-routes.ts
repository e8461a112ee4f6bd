import type { Context, Hono, MiddlewareHandler } from 'hono';
import { described, type RouteDoc } from '../../platform/http/openapi';
import { JWKS_MAX_AGE_SECONDS, type KeyService } from '../keys/service';
import type { ClientService } from '../clients/service';
import { DEVICE_CODE, OPT_IN_GRANTS, type OptInGrant } from '../clients/schemas';
import type { IssuerEnv } from '../issuer';
import { DiscoveryDocument, Jwks } from './schemas';
import { publicCors } from './cors';
import { keyedRepresentation, NOT_MODIFIED, representationOf, sendRepresentation, type Representation } from './etag';

/** OpenID Provider metadata, exactly the fields of spec 02's discovery table. */
export function discoveryDocument(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth2/authorize`,
    token_endpoint: `${issuer}/oauth2/token`,
    jwks_uri: `${issuer}/oauth2/jwks`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    userinfo_endpoint: `${issuer}/oauth2/userinfo`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'email', 'offline_access'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    request_uri_parameter_supported: false,
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
  };
}

/**
 * The discovery document serialized once per issuer and variant, with its ETag (etag.ts).
 * `endSession`: once a client of the tenant registered a post-logout redirect URI, the document
 * also names end_session_endpoint (OpenID Connect RP-Initiated Logout 1.0 §2.1). `grants`: the
 * opt-in grants some client of the tenant registered join grant_types_supported, and the device
 * grant brings device_authorization_endpoint (RFC 8628 §4). With neither, exactly spec 02's
 * (issue 23).
 */
export const discoveryRepresentation = (issuer: string, endSession = false, grants: ReadonlySet<OptInGrant> = new Set()): Representation => {
  const extra = OPT_IN_GRANTS.filter((g) => grants.has(g));
  const key = [`discovery ${issuer}`, ...(endSession ? ['end_session'] : []), ...extra].join(' ');
  return keyedRepresentation(key, () => {
    const doc: Record<string, unknown> = discoveryDocument(issuer);
    if (extra.length) doc.grant_types_supported = [...(doc.grant_types_supported as string[]), ...extra];
    if (endSession) doc.end_session_endpoint = `${issuer}/oauth2/logout`;
    if (grants.has(DEVICE_CODE)) doc.device_authorization_endpoint = `${issuer}/oauth2/device_authorization`;
    return doc;
  });
};

type DiscoveryClients = Pick<ClientService, 'offersRpLogout' | 'grantsOffered'>;

/** The tenant's document, with what its clients opted in to (RP-initiated logout, grants). */
const discoveryOf = async (c: Context<IssuerEnv>, clients: DiscoveryClients): Promise<Representation> => {
  const { issuer, tenant } = c.get('tenant');
  return discoveryRepresentation(issuer, await clients.offersRpLogout(tenant.id), await clients.grantsOffered(tenant.id));
};

/**
 * Metadata changes only with configuration; keys rotate with a staged key published first, and
 * `keys rotate` activates it only once this max-age has passed (keys/service.ts, issue 23).
 */
export const METADATA_CACHE = 'public, max-age=300';
export const JWKS_CACHE = `public, max-age=${JWKS_MAX_AGE_SECONDS}, must-revalidate`;

const metadataDoc = (summary: string): RouteDoc => ({
  summary,
  tags: ['discovery'],
  responses: { 200: { description: 'the metadata', schema: DiscoveryDocument }, 304: NOT_MODIFIED },
  errors: { 404: 'unknown issuer (empty body)' },
});

const metadataRoute = (clients: DiscoveryClients) =>
  described(metadataDoc('RFC 8414 authorization server metadata'), async (c: Context<IssuerEnv>) => sendRepresentation(c, await discoveryOf(c, clients), METADATA_CACHE));

export function mountDiscoveryRoutes(app: Hono<IssuerEnv>, keys: KeyService, clients: DiscoveryClients): void {
  const metadata = metadataRoute(clients);
  // Public documents: readable by any origin (cors.ts). ETag and If-None-Match: see etag.ts.
  for (const p of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth2/jwks']) app.use(p, publicCors());
  app.get(
    '/.well-known/openid-configuration',
    described(metadataDoc('OpenID Connect discovery document'), async (c) => sendRepresentation(c, await discoveryOf(c, clients), METADATA_CACHE)),
  );
  // RFC 8414 §3 for a host-only issuer; path issuers use the route below.
  app.get('/.well-known/oauth-authorization-server', metadata);
  app.get(
    '/oauth2/jwks',
    described(
      { summary: 'The tenant’s signing keys', tags: ['discovery'], responses: { 200: { description: 'JWKS', schema: Jwks }, 304: NOT_MODIFIED }, errors: { 404: 'unknown issuer (empty body)' } },
      async (c) => {
        const tenantId = c.get('tenant').tenant.id;
        return sendRepresentation(c, representationOf(keys.cachedJwks(tenantId) ?? (await keys.jwks(tenantId))), JWKS_CACHE);
      },
    ),
  );
}

/** RFC 8414 §3.1: for an issuer with a path, the path goes after the well-known prefix. */
export function mountPathMetadataRoute(app: Hono<IssuerEnv>, resolve: MiddlewareHandler<IssuerEnv>, clients: DiscoveryClients): void {
  const metadata = metadataRoute(clients);
  const path = '/.well-known/oauth-authorization-server/t/:tenantSegment';
  app.use(path, publicCors());
  // Its own handler (and doc): the document tells it apart from the issuer-relative route.
  app.get(path, resolve, described(metadataDoc('RFC 8414 §3.1 metadata of an issuer with a path'), (c: Context<IssuerEnv>) => metadata(c)));
}
