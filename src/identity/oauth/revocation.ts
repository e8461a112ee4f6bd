import { digest } from '../../platform/crypto';
import type { Client } from '../clients/service';
import type { ResourceServer } from '../credentials/service';
import type { ResolvedTenant } from '../tenants/service';
import type { OAuthContext } from './context';

/** RFC 7009 token revocation and spec 02's revoke-application-grants. */
export function createRevocation(ctx: OAuthContext) {
  const { store, clock, tokens, users } = ctx;

  return {
    /**
     * A refresh token ends its whole grant; an access token has its jti recorded until it would
     * have expired. A token that is unknown, already inactive or issued to another client
     * changes nothing and is still a 200 (RFC 7009 §2.2), so nothing is disclosed.
     */
    async revoke(tenant: ResolvedTenant, client: Client, token: string, opts: { unbindInstallation?: boolean } = {}): Promise<void> {
      const tenantId = tenant.tenant.id;
      const now = clock.nowSeconds();
      const rt = await store.oauth.findRefreshToken(tenantId, digest(token));
      if (rt) {
        if (rt.clientId !== client.clientId) return;
        const onSignOut = opts.unbindInstallation ? ctx.onSignOut : undefined;
        await store.tx(async (tx) => {
          await tx.oauth.revokeGrant(tenantId, rt.grantId, now);
          // Issue 24: signing out unbinds the installation the sign-in bound, in the same transaction.
          if (onSignOut) await onSignOut({ tenantId, grantId: rt.grantId });
        });
        return;
      }
      const at = await tokens.verifyAccessTokenIgnoringExpiry(tenant, token);
      if (at && at.client_id === client.clientId && at.exp > now) {
        await store.tx((tx) => tx.oauth.revokeAccessToken(tenantId, at.jti, at.exp));
      }
    },

    /**
     * Ends every grant (so every access and refresh token), every code not yet exchanged and
     * the remembered consent of one subject for one client. Unknown subjects and clients are a no-op: the answer is 204 either way.
     */
    async revokeApplicationGrants(tenant: ResolvedTenant, _rs: ResourceServer, subject: string, clientId: string): Promise<void> {
      const tenantId = tenant.tenant.id;
      const user = await users.findBySubject(tenantId, subject);
      if (!user) return;
      await store.tx(async (tx) => {
        await tx.oauth.revokeGrantsOf(tenantId, user.id, clientId, clock.nowSeconds());
        await tx.oauth.deleteConsent(tenantId, user.id, clientId);
      });
    },
  };
}
