import type { Context, MiddlewareHandler } from 'hono';
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
  /**
   * A credential of a DISABLED or DELETING environment is refused as one of a disabled app is
   * (issue 24 point 1): 401, read at every request so a change takes effect on every process.
   */
  const serving = async <P extends { environmentId: string }>(p: P | undefined): Promise<P | undefined> =>
    p !== undefined && (await engage.environments.serving(p.environmentId)) ? p : undefined;
  return {
    appKey: guard<EdgeEnv, 'app', AppRow>('app', async (c) => {
      const app = await serving(await engage.installations.appFor(headerOf(c, 'x-service-app-key')));
      if (!app) throw EdgeErrors.unauthorized('X-Service-App-Key does not name an enabled app');
      return app;
    }),
    installation: guard<EdgeEnv, 'installation', InstallationPrincipal>('installation', async (c: Context<EdgeEnv>) =>
      orUnauthorized(await serving(await engage.installations.authenticate(bearerOf(c)))),
    ),
    /** The installation credential of POST /v1/sdk/sync: read with the sync head's revisions (sync/service.ts `authenticate`). */
    syncInstallation: guard<EdgeEnv, 'installation', InstallationPrincipal>('installation', async (c: Context<EdgeEnv>) =>
      orUnauthorized(await serving(await engage.sync.authenticate(bearerOf(c)))),
    ),
    revocation: guard<EdgeEnv, 'revocation', RevocationPrincipal>('revocation', async (c: Context<EdgeEnv>) =>
      orUnauthorized(await engage.privacy.authenticate(bearerOf(c))),
    ),
    accessKey: guard<EdgeEnv, 'accessKey', AccessKeyPrincipal>('accessKey', async (c: Context<EdgeEnv>) => {
      const token = bearerOf(c);
      return orUnauthorized(token === undefined ? undefined : await serving(await engage.environments.authenticateAccessKey(token)));
    }),
  };
}

export type EdgeGuards = ReturnType<typeof createEdgeGuards>;

/**
 * An access key is per environment: a path naming another environment is an incorrectly scoped
 * credential (spec 01, 401), refused with the credential, before anything else of the request is read.
 */
export const ownEnvironment: MiddlewareHandler<EdgeEnv> = async (c, next) => {
  if (c.req.param('environmentId') !== c.get('accessKey').environmentId) throw EdgeErrors.unauthorized();
  await next();
};
