import type { Clock } from '../../platform/clock';
import type { Config } from '../../platform/config';
import type { StoreEngine, TxRunner } from '../../platform/store/store';
import type { ClientService } from '../clients/service';
import type { KeyService } from '../keys/service';
import type { ResourceService } from '../resources/service';
import type { UserService } from '../users/service';
import type { OAuthStore } from './store';
import type { TokenIssuer } from './tokens';

/** What the OAuth service is built from; the grant, introspection and revocation parts share it. */
type Stores = { oauth: OAuthStore };

/** A transaction's stores, for other contexts that issue codes or revoke grants in their own transaction. */
export type OAuthTx = Stores;

export interface OAuthDeps {
  store: Stores & TxRunner<Stores> & Pick<StoreEngine, 'version'>;
  clock: Clock;
  config: Pick<Config, 'accessTokenTtl' | 'idTokenTtl' | 'refreshTokenTtl' | 'authorizationCodeTtl' | 'refreshReuseGraceSeconds'>;
  keys: KeyService;
  clients: ClientService;
  resources: ResourceService;
  users: UserService;
  /**
   * Called inside the code exchange's transaction when the code carries an installation binding
   * code (issue 24): the engagement half binds the installation there (src/services.ts wires it;
   * identity never imports engage). Its answer is the token response's `installation_binding`.
   */
  onCodeExchanged?: (exchange: CodeExchanged) => Promise<InstallationBinding>;
  /**
   * Called inside the revocation's transaction when a refresh token is revoked with
   * `unbind_installation=true` (issue 24): the installation its sign-in bound goes back to
   * anonymous, unless it was bound again since.
   */
  onSignOut?: (signOut: { tenantId: string; grantId: string }) => Promise<void>;
}

/** What the code exchange tells the binding hook. */
export interface CodeExchanged {
  tenantId: string;
  /** The user's subject: the external id the installation is bound to. */
  subject: string;
  /** SHA-256 of the installation binding code. */
  bindingCodeDigest: string;
  /** The grant the exchange creates: one exchange, one transition (and what a sign-out finds it by). */
  grantId: string;
}

/** The token response's `installation_binding` member (docs/sign-in-binding.md). */
export type InstallationBinding =
  | { status: 'BOUND'; installation_id: string; generation: number }
  | { status: 'NOT_BOUND'; reason: 'unknown_code' | 'expired_code' | 'consumed_code' | 'not_available' };

export type OAuthContext = OAuthDeps & { tokens: TokenIssuer };
