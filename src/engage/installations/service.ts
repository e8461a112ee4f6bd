import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret } from '../../platform/crypto';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import type { AppRow } from '../environments/service';
import { EdgeErrors } from '../shared/errors';
import { createInstallationIn, recoverIn, type ProfileTx } from '../profiles/service';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import type { InstallationPrincipal, InstallationRow, InstallationStore, NewInstallation } from './store';
import { type BootstrapInstallationRequest, type InstallationSession, type InstallationState } from './schemas';

/** Prefixes make the three opaque credentials recognisable (secret scanners, mis-scope). */
export type { InstallationPrincipal, NewInstallation } from './store';

export const CREDENTIAL_PREFIX = 'svc_inst_';
export const REVOCATION_PREFIX = 'svc_rev_';
export const RECOVERY_PREFIX = 'svc_rec_';

export type { InstallationSession, InstallationState };

// The installation row is written by profile state (db/owners.ts), through its `…In(tx)` functions.
type Stores = { installations: InstallationStore } & ProfileTx;

function freshCredentials() {
  const credential = newSecret(CREDENTIAL_PREFIX);
  const revocationCredential = newSecret(REVOCATION_PREFIX);
  const recoveryToken = newSecret(RECOVERY_PREFIX);
  return {
    plain: { credential, revocationCredential, recoveryToken },
    digests: { credentialDigest: digest(credential), revocationDigest: digest(revocationCredential), recoveryDigest: digest(recoveryToken) },
  };
}

export function createInstallationService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService; notices?: ChangeNotices }) {
  const { store, clock, environments } = deps;
  const notices = deps.notices ?? NO_NOTICES;

  /**
   * Group commit for new installations: bootstraps that arrive in the same turn of the event
   * loop share one transaction, and each answers only after that commit (DESIGN.md
   * "Durability promise"). The commit, not the inserts, dominates a lone bootstrap. One insert
   * failing fails only its own bootstrap (platform/store/group-commit.ts).
   */
  const insertGrouped = createGroupCommit(store, (tx, row: NewInstallation) => createInstallationIn(tx, row));

  /**
   * POST /v1/sdk/installations. A valid recoveryToken (of an installation of the same app)
   * recovers that installation with three fresh credentials, the old ones dead at once;
   * any other token is ignored and a new installation is created (spec 01 state table).
   */
  /** The enabled app named by an `X-Service-App-Key` header, or a 401 Problem. */
  async function appFor(appKey: string | undefined): Promise<AppRow> {
    const app = appKey && appKey.startsWith('svc_app_') ? await environments.appForKey(appKey) : undefined;
    if (!app) throw EdgeErrors.unauthorized('X-Service-App-Key does not name an enabled app');
    return app;
  }

  async function bootstrap(app: AppRow, req: BootstrapInstallationRequest): Promise<{ created: boolean; session: InstallationSession }> {
    if (req.platform !== app.platform) throw EdgeErrors.invalid(`platform: must be ${app.platform}, the platform of this app`);
    const creds = freshCredentials();
    const recoveryDigest = req.recoveryToken === undefined ? undefined : digest(req.recoveryToken);
    const now = clock.now().toISOString();
    const meta = {
      locale: req.locale,
      timezone: req.timezone,
      sdkVersion: req.sdkVersion,
      appVersion: req.appVersion,
      appBuild: req.appBuild ?? null,
      deviceModel: req.deviceModel ?? null,
      osVersion: req.osVersion ?? null,
    };
    const fresh = (): NewInstallation => ({
      id: newId(),
      environmentId: app.environmentId,
      appId: app.id,
      platform: app.platform,
      ...meta,
      ...creds.digests,
      profileId: newId(),
      createdAt: now,
    });
    const created = (row: NewInstallation) => ({
      created: true,
      row: { ...row, generation: 0, privacy: 'OPTED_IN', pushSubscription: 'OPTED_IN', pushPermission: 'NOT_DETERMINED' } as InstallationRow,
    });
    let result: { created: boolean; row: InstallationRow };
    if (recoveryDigest === undefined) {
      const row = fresh();
      await insertGrouped(row);
      result = created(row);
    } else {
      result = await store.tx(async (tx) => {
        const existing = await tx.installations.findByRecoveryDigest(app.id, recoveryDigest);
        // The recovery is a conditional write on the token presented: when another recovery
        // with the same token won meanwhile, the token is spent and a new installation is made,
        // as it would be had this request come second.
        if (existing && (await recoverIn(tx, existing.environmentId, existing.id, recoveryDigest, { ...meta, ...creds.digests, updatedAt: now }))) {
          // New credentials: streams opened with the old one look at it again and close (issue 26 point 6).
          tx.afterCommit(() => notices.installationChanged(existing.environmentId, existing.id));
          return { created: false, row: existing };
        }
        const row = fresh();
        await createInstallationIn(tx, row);
        return created(row);
      });
    }
    const r = result.row;
    return {
      created: result.created,
      session: {
        installationId: r.id,
        ...creds.plain,
        generation: r.generation,
        privacy: r.privacy,
        pushSubscription: r.pushSubscription,
        pushPermission: r.pushPermission,
        serverTime: now,
      },
    };
  }

  /** `Authorization: Bearer <installation credential>`; anything else is a 401 Problem. */
  /** The installation a credential belongs to, or undefined (the route's guard answers 401). */
  async function authenticate(token: string | undefined): Promise<InstallationPrincipal | undefined> {
    return token && token.startsWith(CREDENTIAL_PREFIX) ? store.installations.findPrincipalByCredential(digest(token)) : undefined;
  }

  async function state(p: InstallationPrincipal): Promise<InstallationState> {
    const r = await store.installations.find(p.environmentId, p.id);
    if (!r) throw EdgeErrors.unauthorized();
    return {
      installationId: r.id,
      generation: r.generation,
      bindingState: r.bindingState,
      privacy: r.privacy,
      pushSubscription: r.pushSubscription,
      pushPermission: r.pushPermission,
      bound: r.bindingState === 'BOUND',
      updatedAt: r.updatedAt,
    };
  }

  /** The profile the installation is bound to now (its anonymous one included); undefined when it is gone. */
  async function profileOf(p: InstallationPrincipal): Promise<string | null | undefined> {
    const r = await store.installations.find(p.environmentId, p.id);
    return r ? r.profileId : undefined;
  }

  return { appFor, bootstrap, authenticate, state, profileOf };
}

export type InstallationService = ReturnType<typeof createInstallationService>;
