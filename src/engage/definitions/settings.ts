/**
 * An environment's sync settings (issue 26 point 4: refreshAfterSeconds "configurable per
 * environment"): `GET|PUT /environments/{e}/sync-settings`, `engage environments sync-settings`,
 * `engage apply` (`syncRefreshAfterSeconds`). Stored in the environment's sync row
 * (engage/definitions); audited. A change reaches the next sync of every installation; it is no
 * definition, so it sends no document again.
 */
import type { Clock } from '../../platform/clock';
import { assertThat } from '../../platform/http/errors';
import { checker, Strict, T, validInput, type Static } from '../../platform/http/schema';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import { EnvironmentErrors } from '../environments/errors';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { ChangeNotices } from '../shared/change-notices';
import { configurationManaged } from '../shared/errors';
import { IN_APP_MIN_INTERVAL, REFRESH_AFTER, setInAppMinIntervalIn, setRefreshAfterIn, syncEnvironmentIn, type DefinitionsTx } from './service';

export const SyncSettingsUpdate = Strict(
  {
    refreshAfterSeconds: T.Optional(
      T.Integer({
        minimum: REFRESH_AFTER.min,
        maximum: REFRESH_AFTER.max,
        description: `how long an SDK waits before its next sync when nothing due sooner concerns it (at least ${REFRESH_AFTER.min}; default ${REFRESH_AFTER.default})`,
      }),
    ),
    inAppMinIntervalSeconds: T.Optional(
      T.Integer({
        minimum: IN_APP_MIN_INTERVAL.min,
        maximum: IN_APP_MIN_INTERVAL.max,
        description: `the least time between two in-app messages on a device (default ${IN_APP_MIN_INTERVAL.default}; 0: none)`,
      }),
    ),
  },
  { minProperties: 1, description: 'the settings to change; those left out keep their value' },
);
export type SyncSettingsUpdate = Static<typeof SyncSettingsUpdate>;
const checkUpdate = checker(SyncSettingsUpdate);

export const SyncSettings = Strict({
  environmentId: T.String({ format: 'uuid' }),
  refreshAfterSeconds: T.Integer({ minimum: REFRESH_AFTER.min }),
  inAppMinIntervalSeconds: T.Integer({ minimum: IN_APP_MIN_INTERVAL.min }),
});
export type SyncSettings = Static<typeof SyncSettings>;

type Stores = DefinitionsTx & AuditTx;

export function createSyncSettingsService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService; notices?: ChangeNotices }) {
  const { store, clock, environments } = deps;
  return {
    async show(environment: string): Promise<SyncSettings> {
      const env = await environments.resolve(environment);
      const s = await syncEnvironmentIn(store, env.id);
      return { environmentId: env.id, refreshAfterSeconds: s.refreshAfterSeconds, inAppMinIntervalSeconds: s.inAppMinIntervalSeconds };
    },
    /** Sets the interval; the same value again changes and records nothing. */
    async update(environment: string, input: unknown, actor: AuditActor, opts: { allowManaged?: boolean } = {}): Promise<SyncSettings> {
      const valid = validInput(checkUpdate, input, EnvironmentErrors.invalid);
      const env = await environments.resolve(environment);
      assertThat(env.status !== 'DELETING', EnvironmentErrors.environmentDeleting(env.name));
      assertThat(opts.allowManaged || env.configurationManaged !== 1, configurationManaged(`environment ${env.name}`));
      const at = clock.now().toISOString();
      let notice = false;
      const after = await store.tx(async (tx) => {
        const before = await syncEnvironmentIn(tx, env.id);
        const refresh = valid.refreshAfterSeconds ?? before.refreshAfterSeconds;
        const interval = valid.inAppMinIntervalSeconds ?? before.inAppMinIntervalSeconds;
        if (refresh !== before.refreshAfterSeconds) await setRefreshAfterIn(tx, env.id, refresh, at);
        // The interval goes to devices in the IN_APP settings document: a definition change.
        if (interval !== before.inAppMinIntervalSeconds) {
          await setInAppMinIntervalIn(tx, env.id, interval, at);
          notice = true;
        }
        if (refresh !== before.refreshAfterSeconds || interval !== before.inAppMinIntervalSeconds) {
          const changed = { refreshAfterSeconds: refresh, inAppMinIntervalSeconds: interval };
          const previous = { refreshAfterSeconds: before.refreshAfterSeconds, inAppMinIntervalSeconds: before.inAppMinIntervalSeconds };
          await auditIn(tx, actor, 'environment.sync_settings.updated', { type: 'environment', id: env.id }, { environmentId: env.id, ...changed, previous }, at);
        }
        return { refreshAfterSeconds: refresh, inAppMinIntervalSeconds: interval };
      });
      if (notice) deps.notices?.definitionsChanged(env.id);
      return { environmentId: env.id, ...after };
    },
  };
}

export type SyncSettingsService = ReturnType<typeof createSyncSettingsService>;
