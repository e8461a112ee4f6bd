import type { ClientService } from '../clients/service';
import type { KeyService } from '../keys/service';
import type { SessionService } from '../sessions/service';
import type { UserService } from '../users/service';
import type { ResolvedTenant } from '../tenants/service';
import { decodeJws, verifyJws } from './jwt';
import { LogoutErrors, type LogoutError } from './errors';

/**
 * OpenID Connect RP-Initiated Logout 1.0 (issue 23): `{issuer}/oauth2/logout`, GET or POST,
 * offered once a client of the tenant registered a post-logout redirect URI (discovery).
 */

/** The request parameters (§2), each read once; `confirm` and `csrf_token` come from our own page. */
export interface LogoutParams {
  id_token_hint?: string;
  client_id?: string;
  post_logout_redirect_uri?: string;
  state?: string;
  confirm?: string;
  csrf_token?: string;
}

export const LOGOUT_FIELDS = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'confirm', 'csrf_token'] as const;

export type LogoutOutcome =
  | { kind: 'redirect'; location: string; clearCookie: boolean }
  | { kind: 'confirm'; csrf: string; clientName: string | null; params: { client_id?: string; post_logout_redirect_uri?: string; state?: string } }
  | { kind: 'done'; clearCookie: boolean }
  | { kind: 'error'; error: LogoutError };

interface Deps {
  clients: Pick<ClientService, 'find'>;
  keys: Pick<KeyService, 'verificationKey'>;
  sessions: Pick<SessionService, 'lookup' | 'end' | 'csrfToken' | 'checkCsrf'>;
  users: Pick<UserService, 'findBySubject'>;
}

export function createEndSession(deps: Deps) {
  /**
   * The hint's claims when we signed it for this issuer. §2: an expired ID token is still a
   * valid hint (the RP's session may have outlived it), so exp is not checked; its key must
   * still verify (ACTIVE or RETIRING).
   */
  async function verifiedHint(tenant: ResolvedTenant, token: string): Promise<{ sub: string; aud: string } | undefined> {
    const jws = decodeJws(token);
    if (!jws || (jws.typ !== undefined && jws.typ !== 'JWT')) return undefined;
    const key = await deps.keys.verificationKey(tenant.tenant.id, jws.kid);
    const claims = key && verifyJws(jws, key);
    if (!claims || claims.iss !== tenant.issuer || typeof claims.sub !== 'string' || typeof claims.aud !== 'string') return undefined;
    // Access tokens (typ at+jwt) carry client_id; an ID token never does.
    if ('client_id' in claims) return undefined;
    return { sub: claims.sub, aud: claims.aud };
  }

  return {
    async handle(tenant: ResolvedTenant, p: LogoutParams, cookie: string | undefined, method: 'GET' | 'POST'): Promise<LogoutOutcome> {
      const tenantId = tenant.tenant.id;
      const hint = p.id_token_hint === undefined ? undefined : await verifiedHint(tenant, p.id_token_hint);
      if (p.id_token_hint !== undefined && !hint) return { kind: 'error', error: LogoutErrors.badHint };
      // §2: client_id, when given with a hint, must be the hint's audience.
      if (hint && p.client_id !== undefined && p.client_id !== hint.aud) return { kind: 'error', error: LogoutErrors.clientMismatch };
      const clientId = hint?.aud ?? p.client_id;
      const client = clientId === undefined ? undefined : await deps.clients.find(tenantId, clientId);
      if (clientId !== undefined && (!client || client.status !== 'ACTIVE')) return { kind: 'error', error: LogoutErrors.unknownClient };
      // §3: only a URI registered for that client, compared exactly; never an open redirector.
      const target = p.post_logout_redirect_uri;
      if (target !== undefined && (!client || !client.postLogoutRedirectUris.includes(target))) return { kind: 'error', error: LogoutErrors.badRedirect };

      const live = await deps.sessions.lookup(tenantId, cookie);
      const back = (clearCookie: boolean): LogoutOutcome => {
        if (target === undefined) return { kind: 'done', clearCookie };
        const url = new URL(target);
        if (p.state !== undefined) url.searchParams.set('state', p.state);
        return { kind: 'redirect', location: url.href, clearCookie };
      };
      if (!live) return back(true);

      // Without proof that the RP speaks for a user of this session, ask (§6: a forged logout
      // request must not end the session): a hint for one of the session's accounts, or our
      // confirmation form posted back with the session's CSRF token.
      const confirmed = method === 'POST' && p.confirm === 'yes' && deps.sessions.checkCsrf(cookie!, p.csrf_token);
      let vouched = false;
      if (hint) {
        const user = await deps.users.findBySubject(tenantId, hint.sub);
        vouched = !!user && live.accounts.some((a) => a.userId === user.id);
      }
      if (!confirmed && !vouched) {
        if (p.confirm !== undefined) return { kind: 'error', error: LogoutErrors.csrf };
        return {
          kind: 'confirm',
          csrf: deps.sessions.csrfToken(cookie!),
          clientName: client?.displayName ?? null,
          params: { client_id: clientId, post_logout_redirect_uri: target, state: p.state },
        };
      }
      await deps.sessions.end(tenantId, live.session.id);
      return back(true);
    },
  };
}

export type EndSession = ReturnType<typeof createEndSession>;
