import type { EnvironmentService } from '../environments/service';
import type { EventRow, OperationService } from '../operations/service';
import type { ProfileService } from '../profiles/service';
import { EdgeErrors } from '../shared/errors';

const event = (e: EventRow) => ({
  operationId: e.operationId,
  installationId: e.installationId,
  generation: e.generation,
  type: e.type,
  occurredAt: new Date(e.occurredMs).toISOString(),
  payload: JSON.parse(e.payload) as unknown,
});

/** A push token lets anyone holding the provider credentials reach the device: shown by its tail only. */
const maskToken = (token: string | null) => (token === null ? null : token.length <= 12 ? '…' : `…${token.slice(-8)}`);

/**
 * What an operator sees of an installation or a profile (never a credential). Owns no table: it
 * reads through the owning contexts' services, the profile state's read models and the
 * operations ledger's history (issue 22 point 7).
 */
export function createInspectionService(deps: { environments: EnvironmentService; profiles: ProfileService; operations: OperationService }) {
  const { environments, profiles, operations } = deps;
  return {
    async installation(id: string, environment?: string) {
      const view = await profiles.installationView(id, environment ? (await environments.resolve(environment)).id : undefined);
      if (!view) throw EdgeErrors.notFound(`installation ${id}`);
      return {
        ...view.row,
        pushToken: maskToken(view.row.pushToken),
        attributes: view.attributes,
        subscriptions: view.subscriptions,
        generations: view.generations,
        operations: await operations.history.counts(view.row.environmentId, id),
      };
    },
    async profile(environment: string, externalId: string, recent = 20) {
      const env = await environments.resolve(environment);
      const p = await profiles.profileView(env.id, externalId);
      if (!p) throw EdgeErrors.notFound(`profile with external id ${externalId}`);
      return {
        id: p.id,
        environmentId: env.id,
        externalId: p.externalId,
        state: p.installations.length > 0 ? 'BOUND' : 'UNBOUND',
        createdAt: p.createdAt,
        attributes: p.attributes,
        tags: p.tags,
        subscriptions: p.subscriptions,
        installations: p.installations,
        recentEvents: (await operations.history.recentEvents(env.id, p.id, recent)).map(event),
      };
    },
  };
}

export type InspectionService = ReturnType<typeof createInspectionService>;
