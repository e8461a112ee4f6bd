import { digest, newSecret } from '../../../platform/crypto';
import type { Resource } from '../../resources/service';
import type { ResolvedTenant } from '../../tenants/service';
import { invalidGrant } from '../errors';
import type { OAuthContext } from '../context';
import { userinfoAudience, type IssuedTokens } from '../tokens';
import type { InstallationBinding } from '../context';

/** Token response of spec 02 (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
  /** Only when the sign-in carried a `binding_code` (issue 24, docs/sign-in-binding.md). */
  installation_binding?: InstallationBinding;
}

/**
 * `aud` of access tokens for a grant: the resource's audience; without a resource the token is
 * only good at this issuer's userinfo endpoint. A resource disabled since the grant ends it.
 */
export function audienceFor(ctx: OAuthContext, tenant: ResolvedTenant, resourceUri: string | null): string | Promise<string> {
  // Without a resource there is nothing to read: no async layer on that token path.
  if (resourceUri === null) return userinfoAudience(tenant.issuer);
  const cached = ctx.resources.cachedByUri(tenant.tenant.id, resourceUri);
  return cached ? activeAudience(cached) : ctx.resources.findByUri(tenant.tenant.id, resourceUri).then(activeAudience);
}

function activeAudience(r: Resource | undefined): string {
  if (!r || r.status !== 'ACTIVE') throw invalidGrant('the grant\'s resource is no longer available');
  return r.audience;
}

export function newRefreshToken(): { token: string; digest: string } {
  const token = newSecret();
  return { token, digest: digest(token) };
}

export function tokenResponse(issued: IssuedTokens, scope: string, refreshToken?: string): TokenResponse {
  const body: TokenResponse = { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn, scope };
  if (refreshToken) body.refresh_token = refreshToken;
  if (issued.idToken) body.id_token = issued.idToken;
  return body;
}
