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
import { configurationManaged } from '../shared/errors';
import { REFRESH_AFTER, setRefreshAfterIn, syncEnvironmentIn, type DefinitionsTx } from './service';

export const SyncSettingsUpdate = Strict({
  refreshAfterSeconds: T.Integer({
    minimum: REFRESH_AFTER.min,
    maximum: REFRESH_AFTER.max,
    description: `how long an SDK waits before its next sync when nothing due sooner concerns it (at least ${REFRESH_AFTER.min}; default ${REFRESH_AFTER.default})`,
  }),
});
export type SyncSettingsUpdate = Static<typeof SyncSettingsUpdate>;
const checkUpdate = checker(SyncSettingsUpdate);

export const SyncSettings = Strict({ environmentId: T.String({ format: 'uuid' }), refreshAfterSeconds: T.Integer({ minimum: REFRESH_AFTER.min }) });
export type SyncSettings = Static<typeof SyncSettings>;

type Stores = DefinitionsTx & AuditTx;

export function createSyncSettingsService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService }) {
  const { store, clock, environments } = deps;
  return {
    async show(environment: string): Promise<SyncSettings> {
      const env = await environments.resolve(environment);
      return { environmentId: env.id, refreshAfterSeconds: (await syncEnvironmentIn(store, env.id)).refreshAfterSeconds };
    },
    /** Sets the interval; the same value again changes and records nothing. */
    async update(environment: string, input: unknown, actor: AuditActor, opts: { allowManaged?: boolean } = {}): Promise<SyncSettings> {
      const valid = validInput(checkUpdate, input, EnvironmentErrors.invalid);
      const env = await environments.resolve(environment);
      assertThat(env.status !== 'DELETING', EnvironmentErrors.environmentDeleting(env.name));
      assertThat(opts.allowManaged || env.configurationManaged !== 1, configurationManaged(`environment ${env.name}`));
      const at = clock.now().toISOString();
      await store.tx(async (tx) => {
        const before = (await syncEnvironmentIn(tx, env.id)).refreshAfterSeconds;
        if (before === valid.refreshAfterSeconds) return;
        await setRefreshAfterIn(tx, env.id, valid.refreshAfterSeconds, at);
        await auditIn(tx, actor, 'environment.sync_settings.updated', { type: 'environment', id: env.id }, { environmentId: env.id, refreshAfterSeconds: valid.refreshAfterSeconds, previous: before }, at);
      });
      return { environmentId: env.id, refreshAfterSeconds: valid.refreshAfterSeconds };
    },
  };
}

export type SyncSettingsService = ReturnType<typeof createSyncSettingsService>;
