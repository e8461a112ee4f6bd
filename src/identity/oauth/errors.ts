import { OAuthError } from '../../platform/http/errors';

/** Error codes of spec 02 (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1; RFC 8707 §2). */
export const E = {
  invalidRequest: 'invalid_request',
  invalidClient: 'invalid_client',
  invalidGrant: 'invalid_grant',
  unsupportedGrantType: 'unsupported_grant_type',
  unsupportedResponseType: 'unsupported_response_type',
  invalidScope: 'invalid_scope',
  invalidTarget: 'invalid_target',
  invalidToken: 'invalid_token',
  insufficientScope: 'insufficient_scope',
  unauthorizedClient: 'unauthorized_client',
  // RFC 8628 §3.5, the device grant's token endpoint answers.
  authorizationPending: 'authorization_pending',
  slowDown: 'slow_down',
  accessDenied: 'access_denied',
  expiredToken: 'expired_token',
} as const;

export type OAuthErrorCode = (typeof E)[keyof typeof E];

export const TOKEN_REALM = 'Basic realm="oauth2/token"';
export const REVOKE_REALM = 'Basic realm="oauth2/revoke"';
export const INTROSPECT_REALM = 'Basic realm="oauth2/introspect"';
export const REVOKE_GRANTS_REALM = 'Basic realm="oauth2/revoke-application-grants"';

export const invalidRequest = (description: string) => new OAuthError(400, E.invalidRequest, description);
export const invalidGrant = (description: string) => new OAuthError(400, E.invalidGrant, description);
export const invalidScope = (description: string) => new OAuthError(400, E.invalidScope, description);
export const invalidTarget = (description: string) => new OAuthError(400, E.invalidTarget, description);
export const unsupportedGrantType = (description: string) => new OAuthError(400, E.unsupportedGrantType, description);
/** RFC 6749 §5.2: the client is not registered for this grant type. */
export const unauthorizedClient = (description: string) => new OAuthError(400, E.unauthorizedClient, description);
/** RFC 8628 §3.5: authorization_pending, slow_down, access_denied, expired_token (400). */
export const deviceError = (error: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token', description: string) => new OAuthError(400, error, description);

/** 401 invalid_client; RFC 6749 §5.2: WWW-Authenticate when the client used HTTP Basic. */
export const invalidClient = (description: string, challenge?: string) =>
  new OAuthError(401, E.invalidClient, description, challenge ? { 'WWW-Authenticate': challenge } : undefined);

/** Userinfo (spec 02): 401, `WWW-Authenticate: Bearer error="invalid_token"`, body {error: invalid_token}. */
export const invalidToken = () => new OAuthError(401, E.invalidToken, undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

/** RFC 6750 §3.1: a valid token without the scope the resource needs. */
export const insufficientScope = (scope: string) =>
  new OAuthError(403, E.insufficientScope, undefined, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` });

/** What the RP-initiated logout page says when the request is refused (issue 23): a page, never a redirect. */
export interface LogoutError {
  status: number;
  title: string;
  message: string;
}

export const LogoutErrors = {
  badHint: { status: 400, title: 'Sign-out link not valid', message: 'The application sent a sign-out request this server cannot verify. Return to the application.' },
  clientMismatch: { status: 400, title: 'Sign-out link not valid', message: 'The application named in the sign-out request does not match its ID token.' },
  unknownClient: { status: 400, title: 'Sign-out link not valid', message: 'The application named in the sign-out request is not registered.' },
  badRedirect: { status: 400, title: 'Sign-out link not valid', message: 'The address to return to after signing out is not registered for this application.' },
  csrf: { status: 403, title: 'This form could not be verified', message: 'For your security you were not signed out. Return to the application and try again.' },
  badForm: { status: 400, title: 'Sign-out link not valid', message: 'The sign-out request was malformed.' },
} satisfies Record<string, LogoutError>;
