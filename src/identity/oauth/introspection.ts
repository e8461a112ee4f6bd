import { CHANNEL } from '../../platform/store/version-channels';
import { CatalogCache } from '../../platform/catalog';
import { CLIENT_CREDENTIALS } from '../clients/schemas';
import type { ResourceServer } from '../credentials/service';
import type { ResolvedTenant } from '../tenants/service';
import { insufficientScope, invalidToken } from './errors';
import type { OAuthContext } from './context';
import { epochSeconds, hasScope } from './scopes';
import { KEY_MISS, type AccessTokenClaims, type UserAccessTokenClaims } from './tokens';
import type { AccessTokenState } from './store';

/** RFC 7662 §2.2 response, exactly the fields of spec 02. */
export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      token_type: 'Bearer';
      sub: string;
      aud: string;
      iss: string;
      iat: number;
      exp: number;
      jti: string;
      email?: string;
      email_verified?: boolean;
    };

export interface UserinfoResponse {
  sub: string;
  email?: string;
  email_verified?: boolean;
  /** OIDC Core §5.1, under the profile scope. */
  updated_at?: number;
}

const INACTIVE = { active: false } as const;

/** Token states remembered per process (see `live`); a few hundred bytes each. */
const TOKEN_STATE_CACHE_SIZE = 50_000;

export function createTokenIntrospection(ctx: OAuthContext) {
  const { store, tokens, clients } = ctx;
  // What the database says about a token (its grant, its jti, its user), kept while the token
  // state version stands still: every revocation of a grant or an access token and every change
  // of a user's status or claims moves it, by any process (the token_state version channel), so a
  // resource server introspecting the same token on every call it serves costs no read. A token
  // whose grant is unknown is not kept (asked again).
  const states = new CatalogCache<AccessTokenState>(() => store.version(CHANNEL.tokenState), TOKEN_STATE_CACHE_SIZE);

  /**
   * A verified access token whose client, grant, jti and subject are all still live; a client
   * credentials token (no grant, no user: no `state`) while its client still has that grant and
   * its jti is not revoked.
   */
  async function live(tenant: ResolvedTenant, token: string): Promise<{ claims: AccessTokenClaims; state?: AccessTokenState } | undefined> {
    // Hot path: with the key and the client in the catalogue cache and the token's state in
    // `states`, nothing is awaited.
    const verified = tokens.verifyAccessToken(tenant, token);
    const claims = verified === KEY_MISS ? await tokens.verifyAccessTokenLoadingKey(tenant, token) : verified;
    if (!claims) return undefined;
    // A disabled client's tokens stop at once. A map lookup in the catalogue cache, which sees
    // a change by any process (the CLI too) on the next request (platform/catalog.ts).
    const client = clients.cached(tenant.tenant.id, claims.client_id) ?? (await clients.find(tenant.tenant.id, claims.client_id));
    if (client?.status !== 'ACTIVE') return undefined;
    const tenantId = tenant.tenant.id;
    const gid = claims.gid;
    if (gid === undefined) {
      if (!client.grantTypes.includes(CLIENT_CREDENTIALS) || (await store.oauth.accessTokenRevoked(tenantId, claims.jti))) return undefined;
      return { claims };
    }
    const key = `${tenantId} ${gid} ${claims.jti}`;
    const state = states.peek(key) ?? (await states.get(key, () => store.oauth.accessTokenState(tenantId, gid, claims.jti)));
    if (!state || state.grantRevokedAt !== null || state.jtiRevoked || state.userStatus !== 'ACTIVE' || state.subject !== claims.sub) return undefined;
    return { claims, state };
  }

  return {
    /**
     * The claims of a live user access token of this tenant (bearer guards of the directory and
     * management APIs, which authorize by a user's permissions: a client credentials token, which
     * has no user, is not one).
     */
    async liveAccessToken(tenant: ResolvedTenant, token: string): Promise<UserAccessTokenClaims | undefined> {
      const t = await live(tenant, token);
      return t?.state ? (t.claims as UserAccessTokenClaims) : undefined;
    },

    /**
     * Only access tokens are introspected, and only by the resource server they are for:
     * a token for another audience, a refresh token or anything unknown is `{active: false}`.
     */
    async introspect(tenant: ResolvedTenant, rs: ResourceServer, token: string): Promise<IntrospectionResponse> {
      const t = await live(tenant, token);
      if (!t || t.claims.aud !== rs.audience) return INACTIVE;
      const { claims: c, state } = t;
      const body: IntrospectionResponse = {
        active: true, scope: c.scope, client_id: c.client_id, token_type: 'Bearer', sub: c.sub, aud: c.aud, iss: c.iss, iat: c.iat, exp: c.exp, jti: c.jti,
      };
      if (state && hasScope(c.scope, 'email')) {
        body.email = state.email;
        body.email_verified = state.emailVerified === 1;
      }
      return body;
    },

    /** OIDC Core §5.3. Any live access token of this tenant with the openid scope. */
    async userinfo(tenant: ResolvedTenant, token: string | undefined): Promise<UserinfoResponse> {
      const t = token ? await live(tenant, token) : undefined;
      // A client credentials token has no user to describe (issue 23).
      if (!t?.state) throw invalidToken();
      if (!hasScope(t.claims.scope, 'openid')) throw insufficientScope('openid');
      const body: UserinfoResponse = { sub: t.state.subject };
      if (hasScope(t.claims.scope, 'email')) {
        body.email = t.state.email;
        body.email_verified = t.state.emailVerified === 1;
      }
      if (hasScope(t.claims.scope, 'profile')) body.updated_at = epochSeconds(t.state.updatedAt);
      return body;
    },
  };
}
