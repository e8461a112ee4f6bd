import type { Context, MiddlewareHandler } from 'hono';
import { DomainError } from '../platform/errors';
import { bearerOf } from '../platform/http/guards';
import type { IssuerEnv } from './issuer';
import { hasScope } from './oauth/scopes';
import type { UserAccessTokenClaims } from './oauth/tokens';
import type { ResolvedTenant } from './tenants/service';

/** Who called a bearer-protected API: the token's subject, client and scopes, in its tenant. */
export interface TokenPrincipal {
  tenantId: string;
  subject: string;
  clientId: string;
  scope: string;
  /** The token's id and grant, for audit records. */
  jti: string;
  grantId: string;
}

export type TokenEnv = { Variables: IssuerEnv['Variables'] & { principal: TokenPrincipal } };

/** Whether `principal` holds the live directory permission `key` (the directory answers). */
export type PermissionCheck = (principal: TokenPrincipal, key: string) => boolean | Promise<boolean>;

const invalidToken = (why: string) => new DomainError('unauthenticated', 'invalid_token', why, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

/**
 * The guards of the directory and management APIs (spec 03 "Authentication"): `bearerToken`
 * accepts a live access token of the request's tenant for `audience` carrying every one of
 * `scopes` (RFC 6750 §3.1: 401 invalid_token, 403 insufficient_scope naming the scope);
 * `permission` then requires the subject's live directory permission (403 access_denied), so
 * removing a permission takes effect while earlier tokens are still unexpired.
 */
export function createTokenGuards(deps: {
  liveAccessToken: (tenant: ResolvedTenant, token: string) => Promise<UserAccessTokenClaims | undefined>;
  hasPermission: PermissionCheck;
}) {
  function bearerToken(opts: { audience: (tenant: ResolvedTenant) => string; scopes: readonly string[] }): MiddlewareHandler<TokenEnv> {
    return async (c, next) => {
      const tenant = c.get('tenant');
      const token = bearerOf(c);
      if (!token) throw invalidToken('no bearer token');
      const claims = await deps.liveAccessToken(tenant, token);
      if (!claims) throw invalidToken('the token is not live or not from this issuer');
      if (claims.aud !== opts.audience(tenant)) throw invalidToken('the token is for another audience');
      const missing = opts.scopes.find((s) => !hasScope(claims.scope, s));
      if (missing)
        throw new DomainError('forbidden', 'insufficient_scope', `scope ${missing} is required`, {
          'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${missing}"`,
        });
      c.set('principal', { tenantId: tenant.tenant.id, subject: claims.sub, clientId: claims.client_id, scope: claims.scope, jti: claims.jti, grantId: claims.gid });
      await next();
    };
  }

  function permission(key: string): MiddlewareHandler<TokenEnv> {
    return async (c: Context<TokenEnv>, next) => {
      if (!(await deps.hasPermission(c.get('principal'), key))) throw new DomainError('forbidden', 'access_denied', `permission ${key} is required`);
      await next();
    };
  }

  return { bearerToken, permission };
}

export type TokenGuards = ReturnType<typeof createTokenGuards>;
