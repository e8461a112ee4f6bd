import type { EnvironmentService } from '../environments/service';
import type { EventRow, OperationService } from '../operations/service';
import type { ProfileService } from '../profiles/service';
import { EdgeErrors } from '../shared/errors';
import { InspectionErrors } from './errors';

const event = (e: EventRow) => ({
  operationId: e.operationId,
  installationId: e.installationId,
  generation: e.generation,
  type: e.type,
  occurredAt: new Date(e.occurredMs).toISOString(),
  payload: JSON.parse(e.payload) as unknown,
});

type ProfileView = NonNullable<Awaited<ReturnType<ProfileService['profileView']>>>;

/** What both views of a profile show first: who it is, whether bound, its values. */
const profileFields = (environmentId: string, p: ProfileView) => ({
  id: p.id,
  environmentId,
  externalId: p.externalId,
  state: p.installations.length > 0 ? 'BOUND' : 'UNBOUND',
  createdAt: p.createdAt,
  attributes: p.attributes,
  tags: p.tags,
  subscriptions: p.subscriptions,
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
  /** A profile of the environment as the administration API shows it (by id or external id). */
  async function profileDetail(environmentId: string, ref: string | { id: string }) {
    const p = await profiles.profileView(environmentId, ref);
    if (!p) throw InspectionErrors.unknownProfile();
    return { ...profileFields(environmentId, p), installations: p.installations.map((i) => ({ ...i, generation: Number(i.generation) })) };
  }
  return {
    /**
     * The administration API's installation (issue 24 point 5): state, generation and binding
     * history, attributes, subscriptions, whether a push token is held (never the token), and
     * its last `recent` operations with their status. unknown_installation when the environment
     * has none of this id (another environment's included).
     */
    async installationDetail(environmentId: string, id: string, recent = 20) {
      const view = await profiles.installationView(id, environmentId);
      if (!view) throw InspectionErrors.unknownInstallation();
      const { pushToken, ...row } = view.row;
      return {
        ...row,
        generation: Number(row.generation),
        pushTokenHeld: pushToken !== null,
        attributes: view.attributes,
        subscriptions: view.subscriptions,
        generations: view.generations.map((g) => ({ ...g, generation: Number(g.generation) })),
        operations: (await operations.history.recentOperations(environmentId, id, recent)).map((o) => ({
          operationId: o.operationId,
          generation: Number(o.generation),
          type: o.type,
          status: o.status,
          occurredAt: o.occurredMs === null ? null : new Date(Number(o.occurredMs)).toISOString(),
          receivedAt: new Date(Number(o.receivedMs)).toISOString(),
        })),
      };
    },
    /** A keyset page of the environment's installations (issue 24): `after` the last id of the page before. */
    async installationPage(environmentId: string, after: string | undefined, size: number) {
      const page = await profiles.installationPage(environmentId, after ?? '', size);
      return { ...page, size, next: page.hasMore ? page.items[page.items.length - 1].id : null };
    },
    profileById: (environmentId: string, id: string) => profileDetail(environmentId, { id }),
    profileByExternalId: (environmentId: string, externalId: string) => profileDetail(environmentId, externalId),
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
      return { ...profileFields(env.id, p), installations: p.installations, recentEvents: (await operations.history.recentEvents(env.id, p.id, recent)).map(event) };
    },
  };
}

export type InspectionService = ReturnType<typeof createInspectionService>;
