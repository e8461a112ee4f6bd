import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { Sealer } from '../platform/crypto';
import type { TxRunner } from '../platform/store/store';
import { createBindingService } from './binding/service';
import { createEnvironmentService } from './environments/service';
import { createEnvironmentDeletion } from './environments/deletion';
import { createEnvironmentOverview } from './environments/overview';
import { createProfileOverview } from './profiles/overview';
import { createOperationOverview } from './operations/overview';
import { createMessagingOverview } from './messaging/overview';
import { notReadyReason } from './messaging/readiness';
import type { WorkStore } from '../platform/work/store';

type WorkTx = { work: WorkStore };
import { createInspectionService } from './inspection/service';
import { createInstallationService } from './installations/service';
import { createOperationService, type EventRecorder, type IngestMetrics } from './operations/service';
import { createPrivacyService } from './privacy/service';
import { createProfileService } from './profiles/service';
import type { EngageStores } from './stores';
import type { AuditTx } from './shared/audit';
import { readFileSync } from 'node:fs';
import type { Logger } from '../platform/logger';
import { createApnsClient } from './messaging/apns';
import { createCredentialService } from './messaging/credentials';
import { createDeliveryWorker, FLOW, type DeliveryMetrics } from './messaging/delivery';
import { createFcmClient } from './messaging/fcm';
import { withFailureLog } from './messaging/provider-log';
import { createMessagingInspection } from './messaging/inspection';
import { redactSendsIn } from './messaging/send-erasure';
import { createSendService, type SendMetrics } from './messaging/service';
import { createTemplateService } from './messaging/templates';
import { createTestGroupService } from './messaging/test-groups';
import { createSyncNoticeService, type NoticeRelay } from './sync-notices/service';
import { createCursorCodec } from './sync/cursor';
import { createSyncService, type SyncMetrics } from './sync/service';
import { createSyncSettingsService } from './definitions/settings';
import { createInboxService } from './inbox/service';
import { createInboxCursorCodec } from './inbox/cursor';
import type { Dialect } from '../platform/store/sql';
import { createInAppService } from './in-app/service';
import { createAutomations } from './automations/wiring';
import { createFlagService } from './flags/service';
import { createFlagSchedules } from './flags/schedules';
import { createPreferenceService } from './preferences/service';
import { createPushChannelService } from './push-channels/service';
import { createWebhookSigningService } from './webhooks/secrets';
import { createWebhookSender } from './webhooks/delivery';

/** The engage services, built once for `serve` and the CLI alike. */
export function createEngageServices(deps: {
  /** With the audit trail's store: engagement changes record their events (shared/audit.ts). */
  store: EngageStores & AuditTx & WorkTx & TxRunner<EngageStores & AuditTx & WorkTx> & { dialect?: Dialect; shareReadsThisTurn?(): void };
  clock: Clock;
  config: Config;
  sealer: Sealer;
  /** The master key: the sync cursor's key is derived from it (every process accepts every other's cursors). */
  masterKey: Buffer;
  /** Asks for erased rows to be scrubbed from the database files soon (a background job). */
  scrubDeleted: () => void;
  metrics?: IngestMetrics & SendMetrics & DeliveryMetrics & SyncMetrics;
  logger: Logger;
  /** Wakes the push delivery job (after a send commits). */
  wakeDeliveries: () => void;
  /** Wakes the durable work queue (after an environment deletion is queued). */
  wakeWork?: () => void;
  /** Change notices to and from the other processes (PostgreSQL: sync-notices/pg-relay.ts); none: this process only. */
  noticeRelay?: NoticeRelay;
}) {
  const { store, clock, config } = deps;
  // Change notices (issue 26 point 6): every writer of what the sync sends tells this hub after
  // its commit; the streams of GET /v1/sdk/sync/events listen to it.
  const syncNotices = createSyncNoticeService({
    relay: deps.noticeRelay,
    settings: { idleMs: config.syncStreamIdle * 1000, heartbeatMs: config.syncStreamHeartbeat * 1000, max: config.syncStreamsMax },
    // The credential as the edge guard checks it (valid, app and environment serving), with the installation's profile now.
    subjectOf: async (token) => {
      const p = await installations.authenticate(token);
      if (!p || !(await environments.serving(p.environmentId))) return undefined;
      const profileId = await installations.profileOf(p);
      return profileId === undefined ? undefined : { environmentId: p.environmentId, installationId: p.id, appId: p.appId, profileId };
    },
    profileOf: (p) => installations.profileOf(p),
    // The live badge (issue 27 point 5): the inbox's unread count, read when it may have changed.
    unread: (subject) => inbox.unreadCount(subject.environmentId, subject.installationId),
    logger: deps.logger,
  });
  const notices = syncNotices.notices;
  const inbox = createInboxService({ store, clock, cursors: createInboxCursorCodec(deps.masterKey), notices });
  // An environment's deletion is durable work (platform/work, registered in src/work.ts).
  const environmentDeletion = createEnvironmentDeletion({ store, clock, logger: deps.logger, wake: deps.wakeWork ?? (() => undefined) });
  const environments = createEnvironmentService({ store, clock, deletion: environmentDeletion, notices });
  // The credential check asks the provider clients below (issue 24 point 2).
  const credentials = createCredentialService({ store, clock, sealer: deps.sealer, environments, providers: () => ({ apns, fcm }), fcmUrl: config.fcmUrl });
  // Provider connections open lazily, on the first delivery: the CLI never makes one.
  const ca = config.pushCaFile ? readFileSync(config.pushCaFile) : undefined;
  // Every attempt a provider does not accept is a warn line (issue 23 point 5).
  const apns = withFailureLog('APNS', createApnsClient({ productionUrl: config.apnsUrl, sandboxUrl: config.apnsSandboxUrl, ca, clock }), deps.logger);
  const fcm = withFailureLog('FCM', createFcmClient({ baseUrl: config.fcmUrl, ca, clock }), deps.logger);
  // config.workLease (tests, operators): a shorter claim, and an attempt starts with two thirds of it left.
  const lease = config.workLease ? config.workLease * 1000 : undefined;
  const flow = lease ? { claimMs: lease, attemptMs: Math.min(FLOW.attemptMs, Math.floor((lease * 2) / 3)) } : undefined;
  const deliveries = createDeliveryWorker({ store, clock, logger: deps.logger, credentials, apns, fcm, metrics: deps.metrics, notices, flow });
  // A committed send: a run under way claims it at once (issue 22 point 3), otherwise its waker starts one (platform/work).
  const wakeDeliveries = () => {
    deliveries.poke();
    deps.wakeDeliveries();
  };
  const messaging = {
    // A template's list is checked against the environment's lists (engage/preferences).
    templates: createTemplateService({ store, clock, environments, lists: (environmentId, key) => lists.definition(environmentId, key) }),
    testGroups: createTestGroupService({ store, clock, environments }),
    sends: createSendService({ store, clock, wake: wakeDeliveries, metrics: deps.metrics, notices }),
    credentials,
    deliveries,
    inspection: createMessagingInspection({ store }),
    /** What privacy erasure asks of the send ledger (issue 21 point 16). */
    erasure: { redactSendsIn },
    close: () => {
      apns.close();
      fcm.close();
    },
  };
  const profiles = createProfileService({ store });
  // Feature flags (issue 26): versions, rollback, scheduled changes (durable work, src/work.ts), exposures.
  const flags = createFlagService({ store, clock, environments, notices });
  const flagSchedules = createFlagSchedules({ store, clock, flags, wake: deps.wakeWork, notices });
  // Subscription lists and push channels/categories (issue 26): definitions the sync sends.
  const lists = createPreferenceService({ store, clock, environments, notices });
  const pushChannels = createPushChannelService({ store, clock, environments, notices });
  // Automations hear of committed events (issue 28) through a work item of the ingest transaction; the engine is made below.
  const ingestEvents: { record?: EventRecorder } = {};
  const operations = createOperationService({ store, clock, metrics: deps.metrics, notices, events: ingestEvents });
  const inApp = createInAppService({ store, clock, environments, notices });
  const webhooks = {
    signing: createWebhookSigningService({ store, clock, sealer: deps.sealer, environments }),
    sender: createWebhookSender({ allowPrivate: config.webhookAllowPrivate }),
  };
  const automations = createAutomations({ store, clock, logger: deps.logger, environments, profiles, messaging, inApp, webhooks, notices, wakeWork: deps.wakeWork, leaseMs: lease });
  ingestEvents.record = automations.recordEventsIn;
  const installations = createInstallationService({ store, clock, environments, notices });
  return {
    messaging,
    environments,
    profiles,
    flags,
    flagSchedules,
    /** In-app messages' administration (issue 27). */
    inApp,
    /** Automations (issue 28): definitions, the trigger, runs and their engine (a work source every serving process runs). */
    automations,
    lists,
    pushChannels,
    installations,
    binding: createBindingService({ store, clock, sealer: deps.sealer, codeTtl: deps.config.bindingCodeTtl, notices }),
    operations,
    /** An environment's sync settings (issue 26 point 4). */
    syncSettings: createSyncSettingsService({ store, clock, environments, notices }),
    /** The inbox's mobile routes (issue 27). */
    inbox,
    /**
     * Outbound webhooks (issue 28): each environment's signing secrets and their rotation; the
     * sender (one attempt: `sender.deliver`, then `retryDelayMs` of webhooks/delivery.ts), whose
     * sockets reach only public addresses and those config.webhookAllowPrivate allow-lists.
     */
    webhooks,
    /** POST /v1/sdk/sync (issue 26). */
    sync: createSyncService({ store, clock, cursors: createCursorCodec(deps.masterKey), metrics: deps.metrics }),
    privacy: createPrivacyService({ store, clock, scrubDeleted: deps.scrubDeleted, sends: messaging.erasure, notices }),
    /** Change notices: the hub writers tell, the streams of GET /v1/sdk/sync/events (issue 26 point 6). */
    syncNotices,
    inspection: createInspectionService({ environments, profiles, operations }),
    /** An environment's deletion: the durable work item's run (registered in src/work.ts). */
    environmentDeletion,
    /** The environment overview (issue 24 point 1), reading each count through its owning context. */
    environmentOverview: (() => {
      const profileCounts = createProfileOverview({ store });
      const operationCounts = createOperationOverview({ store });
      const messagingCounts = createMessagingOverview({ store });
      return createEnvironmentOverview({
        clock,
        apps: (environmentId) => environments.listApps(environmentId),
        installationGroups: (environmentId) => profileCounts.installationGroups(environmentId),
        notReady: notReadyReason,
        operationsSince: (environmentId, sinceMs) => operationCounts.ingestedSince(environmentId, sinceMs),
        sendsSince: (environmentId, sinceMs) => messagingCounts.since(environmentId, sinceMs),
        operationsPerMinute: (environmentId, fromMs, toMs) => operationCounts.perMinute(environmentId, fromMs, toMs),
        deliveriesPerMinute: (environmentId, fromMs, toMs) => messagingCounts.deliveriesPerMinute(environmentId, fromMs, toMs),
      });
    })(),
    /** What the edge routes read before any service runs. */
    limits: { maxRequestBytes: deps.config.maxRequestBytes },
  };
}

export type EngageServices = ReturnType<typeof createEngageServices>;
