import { Enum, Nullable, ScopeToken, Strict, T, checker } from '../../platform/http/schema';

/** Registered redirect URIs are compared exactly (spec 02): absolute, no fragment. */
const RedirectUri = () => T.String({ format: 'uri', pattern: '^(?!javascript:|data:)[^#]*$', maxLength: 2048, description: 'absolute URI without a fragment' });
/** A serialized origin as browsers send it (RFC 6454 §6.2); checked again against URL parsing. */
const WebOrigin = () => T.String({ pattern: '^https?://[^/?#]+$', description: 'scheme, host and non-default port only (https://app.example.com)' });

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
};

/** Spec 03 Client (request), plus webOrigins and postLogoutRedirectUris. */
export const ClientInput = Strict({
  clientId: T.String({ pattern: '^[A-Za-z0-9._~-]{1,128}$', description: '1-128 letters, digits, ".", "_", "~" or "-"' }),
  ...fields,
});
export const checkClientInput = checker(ClientInput);

/** What `clients update` may change. */
export const ClientPatch = Strict({ webOrigins: fields.webOrigins, postLogoutRedirectUris: fields.postLogoutRedirectUris });
export const checkClientPatch = checker(ClientPatch);
