import type { Config } from './platform/config';
import type { Clock } from './platform/clock';
import { Sealer } from './platform/crypto';
import type { Checkpointer } from './platform/store/checkpointer';
import type { Logger } from './platform/logger';
import { createMetrics, type Metrics } from './platform/metrics';
import type { AppStore } from './open-store';
import { createEngageServices } from './engage/services';
import { createKeyService } from './identity/keys/service';
import { createTenantService } from './identity/tenants/service';
import { createSessionService } from './identity/sessions/service';
import { createClientService } from './identity/clients/service';
import { createResourceService } from './identity/resources/service';
import { createCredentialService } from './identity/credentials/service';
import { createUserService } from './identity/users/service';
import { createOAuthService } from './identity/oauth/service';
import { createJobRunner } from './platform/jobs/runner';
import { createMfaService } from './identity/mfa/service';
import { createProviderService } from './identity/providers/service';
import { JOBS, backgroundJobs } from './jobs';


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
  const catalog = () => store.catalogVersion();
  const keys = createKeyService({
    store,
    catalog,
    clock,
    sealer,
    maxSignedTokenTtl: Math.max(config.accessTokenTtl, config.idTokenTtl),
  });
  const tenants = createTenantService({ store, catalog, clock, keys, publicUrl: config.publicUrl });
  const sessions = createSessionService({ store, clock, sessionTtl: config.sessionTtl });
  const resources = createResourceService({ store, clock });
  const clients = createClientService({ store, catalog, clock, resources });
  const credentials = createCredentialService({ store, catalog, clock, resources });
  const users = createUserService({ store, clock });
  const mfa = createMfaService({ store, clock, sealer, masterKey: deps.masterKey });
  const providers = createProviderService({ store, clock, users, publicUrl: config.publicUrl });
  const oauth = createOAuthService({ store, clock, config, keys, clients, resources, users });
  // Background jobs: built here, started only by `serve` (a CLI command runs none).
  const jobs = createJobRunner({ store, clock, logger: deps.logger, metrics });
  const engage = createEngageServices({ store, clock, config, sealer, scrubDeleted: () => jobs.wake(JOBS.scrubDeleted), metrics });
  for (const job of backgroundJobs({ store, keys, sessions, oauth }, deps.logger, deps.checkpointer)) jobs.register(job);
  // The leased jobs' queue, across every process on the database: 1 while a job is due and not yet run.
  metrics.registry.gauge('engage_job_due', 'Leased background jobs due and not yet run, across all processes (1) or not (0), by job.', ['job'], async () => {
    const now = clock.now().getTime();
    return (await store.jobs.leases()).map((l): [{ job: string }, number] => [{ job: l.name }, l.runAfter <= now ? 1 : 0]);
  });
  // /readyz: 503 from the moment a graceful shutdown begins, so load balancers stop sending.
  let draining = false;
  const readiness = async () => (draining ? 'shutting down' : store.readiness());
  const drain = () => void (draining = true);
  return { store, metrics, readiness, drain, sealer, keys, tenants, sessions, clients, resources, credentials, users, oauth, engage, jobs, mfa, providers };
}

export type Services = ReturnType<typeof createServices>;
