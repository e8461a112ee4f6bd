import type { JobDefinition } from './platform/jobs/runner';
import type { Logger } from './platform/logger';
import type { Checkpointer } from './platform/store/checkpointer';
import type { KeyService } from './identity/keys/service';
import type { OAuthService } from './identity/oauth/service';
import type { SessionService } from './identity/sessions/service';
import type { NativeService } from './identity/native/service';
import type { ProviderService } from './identity/providers/service';
import type { InboxService } from './engage/inbox/service';

/** What the jobs need of the services (named here, so services.ts can import this file). */
export interface JobServices {
  store: { scrubDeleted(): Promise<'done' | 'busy'> };
  keys: Pick<KeyService, 'sweep' | 'activateDue'>;
  sessions: Pick<SessionService, 'sweep'>;
  oauth: Pick<OAuthService, 'purgeExpired'>;
  native: Pick<NativeService, 'purgeExpired'>;
  providers: Pick<ProviderService, 'sweepTokenUses'>;
  engage: { inbox: Pick<InboxService, 'purgeExpired'> };
}

/** The background jobs of a serving process (platform/jobs): leased, so each runs once across processes. */
export const JOBS = {
  /** RETIRING keys past their last token become RETIRED (docs/decisions.md, retirement). */
  retireKeys: 'keys.retire-expired',
  /** Keys staged by `keys rotate` become ACTIVE once the JWKS cache lifetime has passed (issue 23). */
  activateKeys: 'keys.activate-due',
  /** Expired sessions, interactions and stale sign-in throttles. */
  purgeSessions: 'sessions.purge-expired',
  /** Authorization codes, refresh tokens and grants a day past their expiry. */
  purgeGrants: 'oauth.purge-expired',
  /** Old page images of erased rows left in the WAL (privacy revocation); woken after each erasure. */
  scrubDeleted: 'store.scrub-deleted',
  /** Native interactions, email challenges and registration/reset grants past their expiry. */
  purgeNative: 'native.purge-expired',
  /** Upstream ID tokens of the social sign-in's replay cache that can no longer be accepted. */
  purgeTokenUses: 'providers.purge-token-uses',
  /** Inbox entries expired for more than a day (issue 27 point 6), each owner's unread count kept exact. */
  purgeInbox: 'inbox.purge-expired',
} as const;

const MINUTE = 60_000;

export function backgroundJobs(s: JobServices, logger: Logger, checkpointer?: Checkpointer): JobDefinition[] {
  // From the checkpointer's worker thread when the process has one (serve), so neither the
  // copying nor the truncation runs on the event loop; otherwise on the write connection.
  const scrub = () =>
    checkpointer
      ? checkpointer.scrubDeleted().catch((e: unknown) => {
          logger.warn('scrub from the checkpoint worker failed; scrubbing on the write connection', { err: e });
          return s.store.scrubDeleted();
        })
      : s.store.scrubDeleted();
  return [
    { name: JOBS.retireKeys, intervalMs: MINUTE, run: () => s.keys.sweep().then(() => undefined) },
    // Every 10 s: a scheduled rotation is due JWKS_MAX_AGE_SECONDS after it, activated soon after.
    { name: JOBS.activateKeys, intervalMs: 10_000, run: () => s.keys.activateDue().then(() => undefined) },
    { name: JOBS.purgeSessions, intervalMs: MINUTE, run: () => s.sessions.sweep() },
    { name: JOBS.purgeGrants, intervalMs: MINUTE, run: () => s.oauth.purgeExpired().then(() => undefined) },
    { name: JOBS.purgeNative, intervalMs: MINUTE, run: () => s.native.purgeExpired().then(() => undefined) },
    { name: JOBS.purgeTokenUses, intervalMs: MINUTE, run: () => s.providers.sweepTokenUses().then(() => undefined) },
    // Every 10 minutes; a run that stopped at its batch budget goes on a second later.
    { name: JOBS.purgeInbox, intervalMs: 10 * MINUTE, retryMs: 1_000, run: async () => ((await s.engage.inbox.purgeExpired()).more ? 'retry' : undefined) },
    // Hourly as well, for an erasure whose wake-up was lost (the process died right after it,
    // or another process without jobs erased). Busy (a reader on an older snapshot, another
    // checkpoint under way): again in a second.
    { name: JOBS.scrubDeleted, intervalMs: 60 * MINUTE, retryMs: 1_000, run: async () => ((await scrub()) === 'busy' ? 'retry' : undefined) },
  ];
}
