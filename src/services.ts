import { CHANNEL } from './platform/store/version-channels';
import type { Config } from './platform/config';
import type { Clock } from './platform/clock';
import { Sealer } from './platform/crypto';
import type { Checkpointer } from './platform/store/checkpointer';
import type { Logger } from './platform/logger';
import { createMetrics, type Metrics } from './platform/metrics';
import type { AppStore } from './open-store';
import { createEngageServices } from './engage/services';
import type { NoticeRelay } from './engage/sync-notices/hub';
import { createIdentityLink } from './engage/environments/identity-link';
import { createKeyService } from './identity/keys/service';
import { createTenantService } from './identity/tenants/service';
import { createSessionService } from './identity/sessions/service';
import { createClientService } from './identity/clients/service';
import { createResourceService } from './identity/resources/service';
import { createCredentialService } from './identity/credentials/service';
import { createUserService } from './identity/users/service';
import { createOAuthService } from './identity/oauth/service';
import { createJobRunner } from './platform/jobs/runner';
import { createWorkQueue } from './platform/work/queue';
import { createWaker } from './platform/work/waker';
import { registerWorkKinds, workKinds } from './work';
import { createMfaService } from './identity/mfa/service';
import { createProviderService } from './identity/providers/service';
import { createTransferService } from './identity/transfer/service';
import { JOBS, backgroundJobs } from './jobs';
import { createMailService } from './platform/mail/outbox';
import { createSmtpSender, type MailSender } from './platform/mail/transport';
import { createNativeService } from './identity/native/service';
import { createAdminService } from './identity/admin/service';
import { ensureControlObjects } from './identity/operators/control';
import { createDirectoryService } from './identity/directory/service';
import { createFederationService } from './identity/federations/service';


export interface CoreDeps {
  config: Config;
  /** The store of the configured engine (open-store.ts). */
  store: AppStore;
  clock: Clock;
  logger: Logger;
  masterKey: Buffer;
  /** The WAL checkpointer of a serving process, if it runs one (platform/store/checkpointer.ts). */
  checkpointer?: Checkpointer;
  /** The process's metrics, the same set its store records transactions in (serve); otherwise a fresh set. */
  metrics?: Metrics;
  /** Sends mail (tests inject one); default: SMTP from config.smtpUrl, or none. */
  mailSender?: MailSender;
  /** Whether the control tenant's stored resource URIs follow config.publicUrl (default true; a CLI command without a public URL of its own: false). */
  followPublicUrl?: boolean;
  /** The sync's change notices to and from the other processes (PostgreSQL: engage/sync-notices/pg-relay.ts); none: this process only. */
  noticeRelay?: NoticeRelay;
}

/**
 * Builds every service once. The HTTP app and the CLI both call this, so they cannot drift.
 * Add a context's service here.
 */
export function createServices(deps: CoreDeps) {
  const { config, clock } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const { store } = deps;
  const sealer = new Sealer(deps.masterKey);
  const catalog = () => store.version(CHANNEL.catalog);
  const keys = createKeyService({
    store,
    catalog,
    clock,
    sealer,
    maxSignedTokenTtl: Math.max(config.accessTokenTtl, config.idTokenTtl),
  });
  const tenants = createTenantService({
    store,
    catalog,
    clock,
    keys,
    publicUrl: config.publicUrl,
    initControl: (control) => ensureControlObjects({ store, resources, clients, clock }, control, { followPublicUrl: deps.followPublicUrl ?? true, consoleUrl: `${config.publicUrl}${config.consolePath}` }),
  });
  const sessions = createSessionService({ store, clock, sessionTtl: config.sessionTtl });
  const resources = createResourceService({ store, catalog, clock });
  const clients = createClientService({ store, catalog, clock, resources });
  const credentials = createCredentialService({ store, catalog, clock, resources });
  // Deleting a user ends their grants, tokens and browser sign-ins and removes their directory
  // memberships and role assignments, in the same transaction. A password change that signs out
  // elsewhere (the account page) ends the grants and the other browser sessions likewise.
  const users = createUserService({ store, clock, endAccess: async (tx, tenantId, user) => {
    await oauth.revokeAllOfUserIn(tx, tenantId, user.id);
    await sessions.signOutEverywhereIn(tx, tenantId, user.id);
    await directory.forgetSubjectIn(tx, tenantId, user.subject);
  }, endOtherAccess: async (tx, tenantId, userId, keepSessionId) => {
    await oauth.revokeAllOfUserIn(tx, tenantId, userId);
    await sessions.signOutOtherSessionsIn(tx, tenantId, userId, keepSessionId);
  }, endSignIns: async (tx, tenantId, userId) => {
    await oauth.revokeAllOfUserIn(tx, tenantId, userId);
    await sessions.signOutEverywhereIn(tx, tenantId, userId);
  } });
  const mfa = createMfaService({ store, clock, sealer, masterKey: deps.masterKey });
  const providers = createProviderService({ store, clock, users, publicUrl: config.publicUrl });
  const directory = createDirectoryService({ store, clock, directoryVersion: () => store.version(CHANNEL.directory) });
  // A sign-in carrying an installation binding code binds it in the code exchange's transaction (issue 24).
  const oauth = createOAuthService({ store, clock, config, keys, clients, resources, users, onCodeExchanged: (e) => engage.binding.bindOnSignIn(e), onSignOut: (e) => engage.binding.unbindOnSignOut(e) });
  const federations = createFederationService({ store, clock, sealer, masterKey: deps.masterKey, tenants, clients, oauth, keys, providers });
  // Background jobs: built here, started only by `serve` (a CLI command runs none).
  const jobs = createJobRunner({ store, clock, logger: deps.logger, metrics });
  // Durable work items (platform/work): every serving process runs the worker; claims are row-level.
  const work = createWorkQueue({ store, clock, logger: deps.logger, metrics, options: config.workLease ? { leaseMs: config.workLease * 1000 } : undefined });
  const transfer = createTransferService({ store, clock, sealer, logger: deps.logger, users, mfa, providers, wake: work.wake });
  const mailSender = deps.mailSender ?? (config.smtpUrl ? createSmtpSender(config.smtpUrl, config.mailFrom!) : undefined);
  const mail = createMailService({ store, clock, sealer, logger: deps.logger, sender: mailSender, metrics });
  work.attach(mail.worker);
  const admin = createAdminService({ store });
  const native = createNativeService({ store, clock, clients, users, oauth, sessions, mail, mfa, providers });
  const engage = createEngageServices({
    store,
    clock,
    config,
    sealer,
    masterKey: deps.masterKey,
    scrubDeleted: () => jobs.wake(JOBS.scrubDeleted),
    metrics,
    logger: deps.logger,
    wakeDeliveries: () => deliveries.wake(),
    wakeWork: () => work.wake(),
    noticeRelay: deps.noticeRelay,
  });
  // The push outbox, a work table of platform/work run by every serving process (claims are
  // row-level): at once after a send commits, and for retries when due (one timer, at most 1 s).
  const deliveries = createWaker({ name: 'push', clock, logger: deps.logger, idleMs: 1_000, drain: () => engage.messaging.deliveries.run(), nextDueMs: () => store.messaging.nextDue() });
  work.attach(deliveries);
  // Automation runs (issue 28): a work table of their own, claimed by every serving process.
  work.attach(engage.automations.engine);
  registerWorkKinds(work, workKinds({ transfer, environmentDeletion: engage.environmentDeletion, flagSchedules: engage.flagSchedules, automationEvents: engage.automations.engine }));
  for (const job of backgroundJobs({ store, keys, sessions, oauth, native, providers, engage }, deps.logger, deps.checkpointer)) jobs.register(job);
  // The leased jobs' queue, across every process on the database: 1 while a job is due and not yet run.
  metrics.registry.gauge('engage_job_due', 'Leased background jobs due and not yet run, across all processes (1) or not (0), by job.', ['job'], async () => {
    const now = clock.now().getTime();
    return (await store.jobs.leases()).map((l): [{ job: string }, number] => [{ job: l.name }, l.runAfter <= now ? 1 : 0]);
  });
  metrics.registry.gauge('engage_work_items_pending', 'Durable work items not yet done nor given up, across all processes, by kind.', ['kind'], async () =>
    (await store.work.pendingByKind()).map((r): [{ kind: string }, number] => [{ kind: r.kind }, Number(r.n)]),
  );
  metrics.registry.gauge('engage_push_deliveries_pending', 'Push deliveries admitted and not yet accepted by a provider nor given up, across all processes, by provider.', ['provider'], async () =>
    (await store.messaging.pendingByProvider()).map((r): [{ provider: string }, number] => [{ provider: r.provider }, r.n]),
  );
  metrics.registry.gauge('engage_sync_streams_open', 'Change-notice streams (GET /v1/sdk/sync/events) open in this process.', [], () => [[{}, engage.syncNotices.openStreams()]]);
  // The identity tenant an environment names (issue 24): beside the engage services, which take no audit store yet.
  const identityLink = createIdentityLink({ store, clock });
  // /readyz: 503 from the moment a graceful shutdown begins, so load balancers stop sending.
  let draining = false;
  const readiness = async () => (draining ? 'shutting down' : store.readiness());
  const drain = () => {
    draining = true;
    // Streams never finish on their own: ended now, so the server's close waits only for real requests.
    engage.syncNotices.drain();
  };
  return { store, metrics, readiness, drain, sealer, keys, tenants, sessions, clients, resources, credentials, users, oauth, engage: { ...engage, identityLink }, jobs, work, mail, mfa, providers, native, directory, admin, transfer, federations };
}

export type Services = ReturnType<typeof createServices>;
