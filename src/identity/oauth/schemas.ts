/**
 * Spec 02 wire shapes of the OAuth routes: forms in, JSON out. OAuth forms are open objects:
 * RFC 6749 §3.1 and §3.2 tell the server to ignore parameters it does not know; the one closed
 * form is revoke-application-grants ("form fields exactly subject and client_id").
 */
import { Nullable, Strict, T, type Static } from '../../platform/http/schema';

const Text = (description: string) => T.String({ minLength: 1, description });

export const AuthorizeQuery = {
  client_id: { schema: Text('registered client identifier'), required: true },
  redirect_uri: { schema: Text('exact registered redirect URI'), required: true },
  response_type: { schema: T.Literal('code'), required: true },
  scope: { schema: Text('registered scopes, normally including openid') },
  state: { schema: Text('unpredictable value bound to the initiating session') },
  code_challenge: { schema: T.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'SHA-256 PKCE challenge' }), required: true },
  code_challenge_method: { schema: T.Literal('S256'), required: true },
  nonce: { schema: Text('binds an ID token to the initiating client session') },
  resource: { schema: T.String({ format: 'uri', description: 'target resource URI (RFC 8707)' }) },
  prompt: { schema: T.String({ description: 'space-delimited: none, login, consent, select_account' }) },
  max_age: { schema: T.String({ pattern: '^[0-9]{1,10}$', description: 'seconds since the last authentication' }) },
  binding_code: { schema: T.String({ pattern: '^[A-Za-z0-9_-]{1,256}$', description: "the app installation's binding code (engagement SDK): the code exchange binds the installation to the user (docs/sign-in-binding.md)" }) },
};

/** OIDC Core 3.1.2.1: the authorization endpoint also takes its parameters as a form. */
export const AuthorizeForm = T.Object(
  Object.fromEntries(Object.entries(AuthorizeQuery).map(([k, v]) => [k, 'required' in v && v.required ? v.schema : T.Optional(v.schema)])),
);

export const AuthorizationCodeForm = T.Object({
  grant_type: T.Literal('authorization_code'),
  code: Text('the one-time code'),
  redirect_uri: Text('the redirect URI the code was issued for'),
  code_verifier: T.String({ minLength: 43, maxLength: 128, description: 'PKCE verifier (RFC 7636 §4.1)' }),
  client_id: T.Optional(Text('public clients identify themselves here; confidential ones use HTTP Basic')),
  resource: T.Optional(T.String({ description: 'must match the grant’s resource' })),
});

export const RefreshTokenForm = T.Object({
  grant_type: T.Literal('refresh_token'),
  refresh_token: Text('the current refresh token'),
  scope: T.Optional(T.String({ description: 'may only reduce the original grant' })),
  client_id: T.Optional(Text('public clients identify themselves here')),
  resource: T.Optional(T.String()),
});

/** RFC 6749 §4.4.2, for a client registered for it (issue 23); the client authenticates with HTTP Basic. */
export const ClientCredentialsForm = T.Object({
  grant_type: T.Literal('client_credentials'),
  scope: T.Optional(T.String({ description: 'resource scopes the client registered (default: all it registered that the resource offers)' })),
  resource: T.Optional(T.String({ description: 'target resource URI (RFC 8707); default: the client\'s defaultResource' })),
});

/** RFC 8628 §3.4, for a client registered for the device grant (issue 23). */
export const DeviceCodeForm = T.Object({
  grant_type: T.Literal('urn:ietf:params:oauth:grant-type:device_code'),
  device_code: Text('the device code of the device authorization response'),
  client_id: T.Optional(Text('public clients identify themselves here')),
});

/** RFC 8628 §3.1: the device authorization request. */
export const DeviceAuthorizationForm = T.Object({
  client_id: T.Optional(Text('public clients identify themselves here; confidential ones use HTTP Basic')),
  scope: T.Optional(T.String({ description: 'registered scopes (default: every scope the client registered)' })),
  resource: T.Optional(T.String({ description: 'target resource URI (RFC 8707); default: the client\'s defaultResource' })),
});

export const DeviceAuthorizationResponse = T.Object({
  device_code: T.String(),
  user_code: T.String({ description: '8 characters from BCDFGHJKLMNPQRSTVWXZ, shown as XXXX-XXXX' }),
  verification_uri: T.String(),
  verification_uri_complete: T.String(),
  expires_in: T.Integer({ minimum: 1 }),
  interval: T.Integer({ minimum: 1 }),
});

export const TokenForm = T.Union([AuthorizationCodeForm, RefreshTokenForm, ClientCredentialsForm, DeviceCodeForm]);
export const GrantType = T.Object({ grant_type: Text('authorization_code, refresh_token, or a grant the client opted in to (client_credentials, urn:ietf:params:oauth:grant-type:device_code)') });

export const TokenResponse = T.Object({
  access_token: T.String(),
  token_type: T.Literal('Bearer'),
  expires_in: T.Integer({ minimum: 1, description: 'access-token lifetime in seconds from response time' }),
  refresh_token: T.Optional(T.String({ description: 'present when offline access was granted' })),
  scope: T.String({ description: 'space-delimited scopes actually granted' }),
  id_token: T.Optional(T.String({ description: 'present for an OpenID Connect authorization' })),
  installation_binding: T.Optional(
    T.Union(
      [
        T.Object({ status: T.Literal('BOUND'), installation_id: T.String(), generation: T.Integer({ minimum: 1 }) }),
        T.Object({ status: T.Literal('NOT_BOUND'), reason: T.Union([T.Literal('unknown_code'), T.Literal('expired_code'), T.Literal('consumed_code'), T.Literal('not_available')]) }),
      ],
      { description: 'present only when the authorization request carried binding_code: whether the code exchange bound the installation (docs/sign-in-binding.md)' },
    ),
  ),
});
export type TokenResponse = Static<typeof TokenResponse>;

export const IntrospectForm = T.Object({ token: Text('the token to introspect'), token_type_hint: T.Optional(T.String()) });

export const IntrospectionResponse = T.Object({
  active: T.Boolean(),
  scope: T.Optional(T.String()),
  client_id: T.Optional(T.String()),
  token_type: T.Optional(T.String()),
  sub: T.Optional(T.String()),
  aud: T.Optional(T.Union([T.String(), T.Array(T.String())])),
  iss: T.Optional(T.String()),
  iat: T.Optional(T.Integer()),
  exp: T.Optional(T.Integer()),
  jti: T.Optional(T.String()),
  email: T.Optional(T.String()),
  email_verified: T.Optional(T.Boolean()),
});

export const RevokeForm = T.Object({
  token: Text('an access or refresh token of the client'),
  token_type_hint: T.Optional(T.String()),
  client_id: T.Optional(Text('public clients identify themselves here')),
  unbind_installation: T.Optional(
    T.Literal('true', { description: 'with a refresh token: the installation its sign-in bound (binding_code) goes back to anonymous, unless bound again since (docs/sign-in-binding.md)' }),
  ),
});

export const RevokeGrantsForm = Strict({ subject: Text('the tenant-local subject'), client_id: Text('the client whose grants go') });

export const UserinfoForm = T.Object({ access_token: T.Optional(Text('RFC 6750 §2.2: the token in the form body')) });

export const UserinfoResponse = T.Object({
  sub: T.String(),
  email: T.Optional(T.String()),
  email_verified: T.Optional(T.Boolean()),
  /** Under the profile scope: seconds since the epoch of the user's last update (OIDC Core §5.1). */
  updated_at: T.Optional(T.Integer()),
});

export const Jwks = T.Object({
  keys: T.Array(
    T.Object({ kty: T.Literal('RSA'), kid: T.String(), use: T.Literal('sig'), alg: T.Literal('RS256'), n: T.String(), e: T.String() }),
  ),
});

const Strings = T.Array(T.String());
export const DiscoveryDocument = T.Object({
  issuer: T.String(),
  authorization_endpoint: T.String(),
  token_endpoint: T.String(),
  jwks_uri: T.String(),
  revocation_endpoint: T.String(),
  introspection_endpoint: T.String(),
  userinfo_endpoint: T.String(),
  response_types_supported: Strings,
  response_modes_supported: Strings,
  grant_types_supported: Strings,
  token_endpoint_auth_methods_supported: Strings,
  revocation_endpoint_auth_methods_supported: Strings,
  code_challenge_methods_supported: Strings,
  scopes_supported: Strings,
  subject_types_supported: Strings,
  id_token_signing_alg_values_supported: Strings,
  request_uri_parameter_supported: T.Boolean(),
  prompt_values_supported: Strings,
  device_authorization_endpoint: T.Optional(T.String({ description: 'present only once a client of the tenant registered the device grant (RFC 8628)' })),
  end_session_endpoint: T.Optional(T.String({ description: 'present only once a client of the tenant registered a post-logout redirect URI (OpenID Connect RP-Initiated Logout 1.0)' })),
});

/** The browser pages' forms (the values are checked by the sign-in flow; shapes here). */
const PageFields = { interaction_id: T.Optional(T.String()), csrf_token: T.Optional(T.String()) };
export const LoginForm = T.Object({ ...PageFields, email: T.Optional(T.String()), password: T.Optional(T.String()) });
export const ConsentForm = T.Object({ ...PageFields, decision: T.Optional(Nullable(T.String())) });
export const SelectForm = T.Object({ ...PageFields, account: T.Optional(T.String()) });
/** The second sign-in step (issue 10): without `code`, it switches between the two forms. */
export const MfaForm = T.Object({ ...PageFields, method: T.Optional(T.Union([T.Literal('totp'), T.Literal('recovery')])), code: T.Optional(T.String()) });
export const ContinueForm = T.Object({ ...PageFields });
