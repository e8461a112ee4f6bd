/**
 * Automations put together (issue 28): the service (definitions, the trigger, runs) and the engine
 * (the work source over automation_runs), with what they ask of other contexts through those
 * contexts' services: profiles (audience, placeholders, time zone), transactional sends (push
 * steps), templates and in-app messages (publish checks), outbound webhooks (webhook steps).
 */
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { Metrics } from '../../platform/metrics';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import type { InAppService, InAppTx } from '../in-app/service';
import type { InboxTx } from '../inbox/service';
import type { ProfileService, ProfileTx } from '../profiles/service';
import type { ChangeNotices } from '../shared/change-notices';
import type { AuditTx } from '../shared/audit';
import type { WebhookSender } from '../webhooks/delivery';
import { retryDelayMs } from '../webhooks/delivery';
import type { WebhookSigningService } from '../webhooks/secrets';
import { insertWorkItemIn } from '../../platform/work/queue';
import type { EventRecorder } from '../operations/service';
import { createAutomationEngine, type SendPort } from './engine';
import { AUTOMATION_EVENTS_WORK, type AutomationEventsWork } from './work';
import { appIdsCache, type ProfileReads } from './entry';
import { createAutomationService } from './service';
import type { AutomationStore } from './store';
import { TIME_ZONE_ATTRIBUTE } from '../sync/documents';

type Stores = { automations: AutomationStore } & InAppTx & ProfileTx & InboxTx & AuditTx;

export function createAutomations(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  logger: Logger;
  environments: Pick<EnvironmentService, 'resolve' | 'listApps'>;
  profiles: ProfileService;
  messaging: { sends: SendPort; templates: { show(environment: string, key: string): Promise<{ status: string }> } };
  inApp: Pick<InAppService, 'find'>;
  webhooks: { signing: Pick<WebhookSigningService, 'signingSecrets'>; sender: Pick<WebhookSender, 'deliver'> };
  notices?: ChangeNotices;
  metrics?: Pick<Metrics, 'workItems'>;
  /** Wakes the durable work queue (the events' work items). */
  wakeWork?: () => void;
  /** The runs' lease (config.workLease); unset: the engine's own. */
  leaseMs?: number;
}) {
  const { store, clock, environments, profiles } = deps;
  const reads: ProfileReads & { timeZone(environmentId: string, profileId: string): Promise<string> } = {
    async profile(environmentId, profileId) {
      const p = await profiles.profileView(environmentId, { id: profileId });
      return p && { id: p.id, externalId: p.externalId, attributes: p.attributes, tags: p.tags, installations: p.installations };
    },
    exists: (environmentId, profileId) => profiles.profileExists(environmentId, profileId),
    installationAttributes: async (environmentId, installationId) => (await profiles.installationView(installationId, environmentId))?.attributes ?? {},
    /** The profile's `time_zone` attribute, else its first installation's zone, else UTC. */
    async timeZone(environmentId, profileId) {
      const p = await profiles.profileView(environmentId, { id: profileId });
      const zone = p?.attributes[TIME_ZONE_ATTRIBUTE];
      if (typeof zone === 'string' && zone !== '') return zone;
      const first = p?.installations[0];
      const view = first ? await profiles.installationView(first.id, environmentId) : undefined;
      return (view?.row as { timezone?: string } | undefined)?.timezone ?? 'UTC';
    },
  };
  const swallow = async (f: () => Promise<unknown>) => {
    try {
      await f();
      return true;
    } catch {
      return false;
    }
  };
  let wake: () => void = () => undefined;
  let changed: (environmentId: string) => void = () => undefined;
  const service = createAutomationService({
    store,
    clock,
    environments,
    profiles: reads,
    exists: {
      template: async (environmentId, key) => {
        let active = false;
        await swallow(async () => (active = (await deps.messaging.templates.show(environmentId, key)).status === 'ACTIVE'));
        return active;
      },
      message: (environmentId, key) => swallow(() => deps.inApp.find(environmentId, key)),
    },
    wake: () => wake(),
    changed: (environmentId) => changed(environmentId),
  });
  const engine = createAutomationEngine({
    store,
    clock,
    logger: deps.logger,
    metrics: deps.metrics,
    automations: service,
    profiles: reads,
    sends: deps.messaging.sends,
    webhooks: {
      async deliver(environmentId, r) {
        const secrets = await deps.webhooks.signing.signingSecrets(environmentId);
        return deps.webhooks.sender.deliver({ ...r, secrets, nowMs: clock.now().getTime() });
      },
      retryDelayMs,
    },
    // Kept a second per environment (entry.ts appIdsCache): every push step asks.
    appIdsOf: appIdsCache((environmentId) => environments.listApps(environmentId)),
    notices: deps.notices,
    ...(deps.leaseMs ? { options: { leaseMs: deps.leaseMs } } : {}),
  });
  wake = engine.wake;
  changed = engine.forget;
  /** The ingest transaction's hook: a work item for a profile's events, when an automation of the environment listens to events. */
  const recordEventsIn: EventRecorder = async (tx, environmentId, profileId, events) => {
    if (!(await engine.needsEvents(environmentId))) return;
    const payload: AutomationEventsWork = { environmentId, profileId, events: [...events] };
    await insertWorkItemIn(tx, AUTOMATION_EVENTS_WORK, payload, clock.now().getTime());
    if (deps.wakeWork) tx.afterCommit(deps.wakeWork);
  };
  return { ...service, engine, recordEventsIn };
}

export type Automations = ReturnType<typeof createAutomations>;
