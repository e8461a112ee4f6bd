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

/** 401 invalid_client; RFC 6749 §5.2: WWW-Authenticate when the client used HTTP Basic. */
export const invalidClient = (description: string, challenge?: string) =>
  new OAuthError(401, E.invalidClient, description, challenge ? { 'WWW-Authenticate': challenge } : undefined);

/** Userinfo (spec 02): 401, `WWW-Authenticate: Bearer error="invalid_token"`, body {error: invalid_token}. */
export const invalidToken = () => new OAuthError(401, E.invalidToken, undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

/** RFC 6750 §3.1: a valid token without the scope the resource needs. */
export const insufficientScope = (scope: string) =>
  new OAuthError(403, E.insufficientScope, undefined, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` });
