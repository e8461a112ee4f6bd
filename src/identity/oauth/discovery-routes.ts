import type { Hono } from 'hono';
import type { KeyService } from '../keys/service';
import type { IssuerEnv } from '../issuer';
import { publicCors } from './cors';
import { keyedRepresentation, representationOf, sendRepresentation, type Representation } from './etag';

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

/** The discovery document serialized once per issuer, with its ETag (etag.ts). */
export const discoveryRepresentation = (issuer: string): Representation => keyedRepresentation(`discovery ${issuer}`, () => discoveryDocument(issuer));

/** Metadata changes only with configuration; keys rotate with a staged key published first. */
export const METADATA_CACHE = 'public, max-age=300';
export const JWKS_CACHE = 'public, max-age=300, must-revalidate';

export function mountDiscoveryRoutes(app: Hono<IssuerEnv>, keys: KeyService): void {
  // Public documents: readable by any origin (cors.ts). ETag and If-None-Match: see etag.ts.
  for (const p of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/oauth2/jwks']) app.use(p, publicCors());
  app.get('/.well-known/openid-configuration', (c) => sendRepresentation(c, discoveryRepresentation(c.get('tenant').issuer), METADATA_CACHE));
  // RFC 8414 §3 for a host-only issuer; path issuers are served by the root app.
  app.get('/.well-known/oauth-authorization-server', (c) => sendRepresentation(c, discoveryRepresentation(c.get('tenant').issuer), METADATA_CACHE));
  app.get('/oauth2/jwks', (c) => sendRepresentation(c, representationOf(keys.jwks(c.get('tenant').tenant.id)), JWKS_CACHE));
}
