import type { Context } from 'hono';
import { bearerOf, guard } from '../platform/http/guards';
import { headerOf, type AppEnv } from '../platform/http/request';
import type { AccessKeyPrincipal, AppRow } from './environments/service';
import type { InstallationPrincipal } from './installations/service';
import type { RevocationPrincipal } from './privacy/service';
import type { EngageServices } from './services';
import { EdgeErrors } from './shared/errors';

/** What a mobile edge handler may be handed (spec 01 "Authentication"). */
export type EdgeEnv = {
  Variables: AppEnv['Variables'] & {
    app: AppRow;
    installation: InstallationPrincipal;
    revocation: RevocationPrincipal;
    accessKey: AccessKeyPrincipal;
  };
};

const orUnauthorized = <P>(p: P | undefined): P => {
  if (p === undefined) throw EdgeErrors.unauthorized();
  return p;
};

/**
 * The four credentials of spec 01, each a guard: the app key header (bootstrap), the
 * installation credential, the revocation credential and the environment access key, every
 * bearer read by the one parser (a repeated Authorization line is no credential at all).
 */
export function createEdgeGuards(engage: EngageServices) {
  return {
    appKey: guard<EdgeEnv, 'app', AppRow>('app', (c) => engage.installations.appFor(headerOf(c, 'x-service-app-key'))),
    installation: guard<EdgeEnv, 'installation', InstallationPrincipal>('installation', async (c: Context<EdgeEnv>) =>
      orUnauthorized(await engage.installations.authenticate(bearerOf(c))),
    ),
    revocation: guard<EdgeEnv, 'revocation', RevocationPrincipal>('revocation', async (c: Context<EdgeEnv>) =>
      orUnauthorized(await engage.privacy.authenticate(bearerOf(c))),
    ),
    accessKey: guard<EdgeEnv, 'accessKey', AccessKeyPrincipal>('accessKey', async (c: Context<EdgeEnv>) => {
      const token = bearerOf(c);
      return orUnauthorized(token === undefined ? undefined : await engage.environments.authenticateAccessKey(token));
    }),
  };
}

export type EdgeGuards = ReturnType<typeof createEdgeGuards>;
