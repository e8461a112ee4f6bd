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
}

export type OAuthContext = OAuthDeps & { tokens: TokenIssuer };
