import type { EnvironmentService } from '../environments/service';
import { EdgeErrors } from '../shared/errors';
import type { EventRow, InspectionStore } from './store';

type Stores = { inspection: InspectionStore };

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

const values = (rows: { key: string; value: string }[]) => Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));

/** What an operator sees of an installation or a profile (never a credential). */
export function createInspectionService(deps: { store: Stores; environments: EnvironmentService }) {
  const { store, environments } = deps;
  return {
    async installation(id: string, environment?: string) {
      const environmentId = environment ? (await environments.resolve(environment)).id : await store.inspection.environmentOfInstallation(id);
      const row = environmentId ? await store.inspection.installation(environmentId, id) : undefined;
      if (!row || !environmentId) throw EdgeErrors.notFound(`installation ${id}`);
      return {
        ...row,
        pushToken: maskToken(row.pushToken),
        attributes: values(await store.inspection.installationAttributes(id)),
        subscriptions: Object.fromEntries((await store.inspection.installationSubscriptions(id)).map((s) => [s.list, !!s.subscribed])),
        generations: await store.inspection.generations(id),
        operations: await store.inspection.operationCounts(environmentId, id),
      };
    },
    async profile(environment: string, externalId: string, recent = 20) {
      const env = await environments.resolve(environment);
      const p = await store.inspection.profileByExternalId(env.id, externalId);
      if (!p) throw EdgeErrors.notFound(`profile with external id ${externalId}`);
      const installations = await store.inspection.installationsOfProfile(env.id, p.id);
      return {
        id: p.id,
        environmentId: env.id,
        externalId: p.externalId,
        state: installations.length > 0 ? 'BOUND' : 'UNBOUND',
        createdAt: p.createdAt,
        attributes: values(await store.inspection.profileAttributes(p.id)),
        tags: (await store.inspection.profileTags(p.id)).map((t) => t.tag),
        subscriptions: (await store.inspection.profileSubscriptions(p.id)).map((s) => ({ list: s.list, channel: s.channel, subscribed: !!s.subscribed })),
        installations,
        recentEvents: (await store.inspection.recentEvents(env.id, p.id, recent)).map(event),
      };
    },
  };
}

export type InspectionService = ReturnType<typeof createInspectionService>;
