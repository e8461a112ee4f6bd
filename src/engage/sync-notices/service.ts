import type { ServerResponse } from 'node:http';
import type { Logger } from '../../platform/logger';
import type { InstallationPrincipal } from '../installations/service';
import { EdgeErrors } from '../shared/errors';
import { createNoticeHub, type NoticeRelay } from './hub';
import { createNoticeStreams, STREAM_DEFAULTS, type StreamSettings, type StreamSubject } from './streams';

export type { NoticeRelay } from './hub';

/**
 * Change notices (issue 26 point 6): the hub every writer tells after its commit (`notices`,
 * a ChangeNotices), the streams of GET /v1/sdk/sync/events, and the relay to the other
 * processes on PostgreSQL. A CLI command builds it too (its writes publish to the serving
 * processes) but never listens nor opens a stream.
 */
export function createSyncNoticeService(deps: {
  relay?: NoticeRelay;
  settings: Omit<StreamSettings, keyof typeof STREAM_DEFAULTS> & Partial<StreamSettings>;
  /** The installation the credential names now (credential valid, app and environment serving), with its profile. */
  subjectOf: (token: string) => Promise<StreamSubject | undefined>;
  /** The profile the installation is bound to now; undefined when it is gone. */
  profileOf: (p: InstallationPrincipal) => Promise<string | null | undefined>;
  /** The installation's inbox unread count now (the badge events of issue 27 point 5). */
  unread?: (subject: StreamSubject) => Promise<number | undefined>;
  logger: Logger;
}) {
  const hub = createNoticeHub({ relay: deps.relay });
  const streams = createNoticeStreams({
    hub,
    settings: { ...STREAM_DEFAULTS, ...deps.settings },
    check: deps.subjectOf,
    unread: deps.unread,
    logger: deps.logger,
  });
  let listening = false;
  // The guard has just checked the credential: only the profile is read (one statement).
  const subject = async (p: InstallationPrincipal): Promise<StreamSubject> => {
    const profileId = await deps.profileOf(p);
    if (profileId === undefined) throw EdgeErrors.unauthorized();
    return { environmentId: p.environmentId, installationId: p.id, appId: p.appId, profileId };
  };
  return {
    /** What writers call after their transaction committed. */
    notices: hub.notices,
    /** A stream for the installation the guard authenticated with `token`, as a ReadableStream. */
    async open(p: InstallationPrincipal, token: string, opts: { badge?: boolean } = {}): Promise<ReadableStream<Uint8Array>> {
      return streams.open(await subject(p), token, opts);
    },
    /** The same, written straight to Node's response (`headers` its head): what `serve` answers with. */
    async openOn(res: ServerResponse, headers: Record<string, string>, p: InstallationPrincipal, token: string, opts: { badge?: boolean } = {}): Promise<void> {
      streams.openOn(res, headers, await subject(p), token, opts);
    },
    /** `serve`: hears the other processes' notices (PostgreSQL); nothing to hear on SQLite. */
    async listen(): Promise<void> {
      if (listening || !deps.relay?.listen) return;
      listening = true;
      await deps.relay.listen(hub.deliver, () => hub.everyone('gap'));
    },
    /** Open streams in this process (/metrics). */
    openStreams: streams.count,
    /** Graceful shutdown begins: every stream ends (the SDKs reconnect elsewhere). */
    drain: streams.closeAll,
    /** Publishes what is queued and stops listening (before the store closes). */
    async close(): Promise<void> {
      streams.closeAll();
      await deps.relay?.close();
    },
  };
}

export type SyncNoticeService = ReturnType<typeof createSyncNoticeService>;
