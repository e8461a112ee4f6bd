import { Enum, Nullable, ScopeToken, Strict, T, checker } from '../../platform/http/schema';

/** Registered redirect URIs are compared exactly (spec 02): absolute, no fragment. */
const RedirectUri = () => T.String({ format: 'uri', pattern: '^(?!javascript:|data:)[^#]*$', maxLength: 2048, description: 'absolute URI without a fragment' });
/** A serialized origin as browsers send it (RFC 6454 §6.2); checked again against URL parsing. */
const WebOrigin = () => T.String({ pattern: '^https?://[^/?#]+$', description: 'scheme, host and non-default port only (https://app.example.com)' });

/** Grants a client may opt in to beyond spec 02's authorization_code and refresh_token (issue 23). */
export const CLIENT_CREDENTIALS = 'client_credentials';
/** RFC 8628 §3.4. */
export const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
export const OPT_IN_GRANTS = [CLIENT_CREDENTIALS, DEVICE_CODE] as const;
export type OptInGrant = (typeof OPT_IN_GRANTS)[number];

const fields = {
  displayName: T.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  applicationType: Enum(['WEB', 'NATIVE']),
  tokenEndpointAuthMethod: Enum(['CLIENT_SECRET_BASIC', 'NONE']),
  consentPolicy: Enum(['EXPLICIT', 'PRE_AUTHORIZED']),
  redirectUris: T.Array(RedirectUri(), { minItems: 1 }),
  scopes: T.Array(ScopeToken()),
  defaultResource: T.Optional(Nullable(T.String({ minLength: 1 }))),
  nativeAuthenticationEnabled: T.Optional(T.Boolean()),
  /** Not in spec 03's Client: browser origins allowed by CORS (docs/decisions.md). */
  webOrigins: T.Optional(Nullable(T.Array(WebOrigin()))),
  /** Not in spec 03's Client: where RP-initiated logout may send the browser back (issue 23), compared exactly. */
  postLogoutRedirectUris: T.Optional(T.Array(RedirectUri())),
  /**
   * Not in spec 03's Client: the grants it opted in to beyond authorization_code and
   * refresh_token (issue 23); client_credentials needs a confidential client.
   */
  grantTypes: T.Optional(T.Array(Enum(OPT_IN_GRANTS, { description: `${CLIENT_CREDENTIALS} (confidential clients only) or ${DEVICE_CODE} (RFC 8628)` }))),
};

/** Spec 03 Client (request), plus webOrigins, postLogoutRedirectUris and grantTypes. */
export const ClientInput = Strict({
  clientId: T.String({ pattern: '^[A-Za-z0-9._~-]{1,128}$', description: '1-128 letters, digits, ".", "_", "~" or "-"' }),
  ...fields,
});
export const checkClientInput = checker(ClientInput);

/** What `clients update` may change. */
export const ClientPatch = Strict({ webOrigins: fields.webOrigins, postLogoutRedirectUris: fields.postLogoutRedirectUris, grantTypes: fields.grantTypes });
export const checkClientPatch = checker(ClientPatch);
