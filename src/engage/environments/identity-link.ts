import type { AuditActor, AuditEventInput } from '../../platform/audit/audit';
import type { Clock } from '../../platform/clock';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { EnvironmentErrors } from './errors';
import type { EnvironmentRow, EnvironmentStore } from './store';

type Stores = {
  environments: EnvironmentStore;
  audit: { record(actor: AuditActor, event: AuditEventInput): Promise<unknown> };
};

/**
 * The identity tenant an environment names (issue 24, docs/decisions.md "Environment and
 * identity"): its user subjects are the environment's external ids, so a sign-in through it
 * binds the app's installation. The caller resolves the tenant (engage never imports identity);
 * deleting the tenant clears the link (a foreign key, ON DELETE SET NULL).
 */
export function createIdentityLink(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
  const { store, clock } = deps;

  async function resolve(ref: string): Promise<EnvironmentRow> {
    const env = (await store.environments.findEnvironmentById(ref)) ?? (await store.environments.findEnvironmentByName(ref));
    assertThat(env, EnvironmentErrors.unknownEnvironment(ref));
    return env;
  }

  return {
    /** Names `tenantId` (or none: null) for the environment; audited when it changes. The environment as it is now. */
    async set(environment: string, tenantId: string | null, actor: AuditActor): Promise<EnvironmentRow> {
      const env = await resolve(environment);
      return store.tx(async (tx) => {
        const now = await tx.environments.findEnvironmentById(env.id);
        assertThat(now, EnvironmentErrors.unknownEnvironment(environment));
        if ((now.identityTenantId ?? null) === tenantId) return now;
        await tx.environments.setIdentityTenant(env.id, tenantId);
        await tx.audit.record(actor, {
          tenantId: null,
          action: 'environment.identity_tenant.changed',
          targetType: 'environment',
          targetId: env.id,
          details: { identityTenantId: tenantId, previous: now.identityTenantId ?? null },
          at: clock.now(),
        });
        return { ...now, identityTenantId: tenantId };
      });
    },

    /** The environments naming the tenant (a sign-in through it binds installations there). */
    environmentsOf: (tenantId: string): Promise<EnvironmentRow[]> => store.environments.listEnvironmentsOfTenant(tenantId),
  };
}

export type IdentityLink = ReturnType<typeof createIdentityLink>;
