/**
 * Spec 02 native adapter wire shapes: form-encoded requests, JSON answers. Forms are open
 * objects, as the OAuth forms are (RFC 6749 §3.1: unknown parameters are ignored); every field
 * the endpoint table names is required, present once and non-empty (the form reader turns a
 * repeated field into invalid_request before the schema sees it).
 */
import { Enum, Nullable, T } from '../../platform/http/schema';
import { Email } from '../users/schemas';

const Text = (description: string, max = 4096) => T.String({ minLength: 1, maxLength: max, description });
const InteractionId = () => T.String({ minLength: 1, maxLength: 128, description: 'the interactionId of POST /interactions' });
/** Spec 02 Limits: email codes are six digits. */
const SixDigits = () => T.String({ pattern: '^[0-9]{6}$', description: 'the six-digit code from the email' });
const Secret = (description: string) => T.String({ minLength: 1, maxLength: 1024, description });
const Password = (description: string) => T.String({ minLength: 1, description });

export const InteractionForm = T.Object({
  client_id: Text('registered client identifier', 128),
  redirect_uri: Text('exact registered redirect URI', 2048),
  response_type: Text('code', 64),
  scope: Text('registered scopes, normally including openid'),
  state: Text('returned unchanged with the code'),
  code_challenge: Text('S256 PKCE challenge (43 characters)', 128),
  code_challenge_method: Text('S256', 16),
  nonce: Text('binds the ID token to the client session'),
  resource: T.Optional(Text('target resource URI (RFC 8707)', 2048)),
  prompt: T.Optional(Text('login is accepted; none, consent and select_account need the browser', 128)),
  max_age: T.Optional(T.String({ pattern: '^[0-9]{1,10}$' })),
  binding_code: T.Optional(T.String({ pattern: '^[A-Za-z0-9_-]{1,256}$', description: "the installation's binding code (engagement SDK): the code exchange binds the installation to the user" })),
});

export const PasswordForm = T.Object({ interaction_id: InteractionId(), email: Email(), password: Password('the account password') });

export const SocialForm = T.Object({
  interaction_id: InteractionId(),
  provider: Text('the name of an identity provider configured for the tenant', 128),
  id_token: Text('the ID token the provider issued to the app', 16384),
  nonce: Text('the nonce the app sent to the provider'),
  audience: Text('the client id the provider issued the ID token to'),
});

export const EmailRequestForm = T.Object({ interaction_id: InteractionId(), email: Email() });
export const EmailVerifyForm = T.Object({ interaction_id: InteractionId(), email: Email(), code: SixDigits() });

export const MfaForm = T.Object({
  interaction_id: InteractionId(),
  challenge_token: Secret('the challengeToken of the mfa_required answer'),
  method: Enum(['totp', 'recovery'] as const, { description: 'totp (authenticator code) or recovery (recovery code)' }),
  code: Text('the authenticator or recovery code', 128),
});

export const RegistrationCompleteForm = T.Object({
  interaction_id: InteractionId(),
  registration_grant: Secret('the registrationGrant of registration/verify'),
  password: Password('the new account password (tenant policy: 8 to 1024 characters)'),
});

export const RecoveryCompleteForm = T.Object({
  interaction_id: InteractionId(),
  reset_grant: Secret('the resetGrant of password/recovery/verify'),
  new_password: Password('the new password (tenant policy: 8 to 1024 characters, not the current one)'),
});

// Answers (spec 02 "Native responses").

export const InteractionCreated = T.Object({ interactionId: T.String({ description: 'opaque; pass as interaction_id' }) });

export const CodeResult = T.Object({
  code: T.String({ description: 'one-time authorization code, exchanged at the token endpoint with the PKCE verifier' }),
  state: T.String({ description: 'the state of the interaction' }),
  issuer: T.String(),
  redirectUri: T.String({ description: 'registered callback bound to the code' }),
  replacementRecoveryCode: Nullable(T.String({ description: 'non-null when a recovery code was consumed: store it' })),
});

export const MfaChallenge = T.Object({ status: T.Literal('mfa_required'), challengeToken: T.String() });

export const Timers = T.Object({
  retryAfterSeconds: T.Integer({ minimum: 0, description: 'wait at least this long before asking for another code' }),
  expiresInSeconds: T.Integer({ minimum: 1, description: 'how long the emailed code stays valid' }),
});

export const RegistrationVerified = T.Object({ registrationGrant: T.String(), expiresInSeconds: T.Integer({ minimum: 1 }) });
export const RecoveryVerified = T.Object({ resetGrant: T.String(), expiresInSeconds: T.Integer({ minimum: 1 }) });

export const ProofResult = T.Union([CodeResult, MfaChallenge]);
