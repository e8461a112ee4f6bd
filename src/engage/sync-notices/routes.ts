import type { Context, Hono } from 'hono';
import { bearerOf } from '../../platform/http/guards';
import { alreadySent, nodeResponse } from '../../platform/http/request';
import { described } from '../../platform/http/openapi';
import type { EdgeEnv, EdgeGuards } from '../guards';
import type { EngageServices } from '../services';

/**
 * GET /v1/sdk/sync/events (issue 26 point 6, an extension of spec 01): Server-Sent Events that
 * say "sync now" (`event: sync`, `data: {}`) and nothing else; docs/sync.md "Change notices".
 */
export function mountSyncNoticeRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  const headers = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    // nginx buffers responses unless told not to: a notice must not wait in a proxy.
    'X-Accel-Buffering': 'no',
  };
  // On the Node server the stream writes to the response itself (streams.ts `responseSink`).
  const answer = async (c: Context<EdgeEnv>, opts: { badge?: boolean } = {}): Promise<Response> => {
    const res = nodeResponse(c);
    if (!res) return c.body(await engage.syncNotices.open(c.get('installation'), bearerOf(c)!, opts), 200, headers);
    await engage.syncNotices.openOn(res, headers, c.get('installation'), bearerOf(c)!, opts);
    return alreadySent();
  };
  app.get(
    '/v1/sdk/sync/events',
    guards.installation,
    described(
      {
        summary: 'Change notices: a Server-Sent Events stream that says when to sync (extension)',
        tags: ['mobile'],
        security: ['installation'],
        responses: {
          200: {
            description:
              'text/event-stream: `retry:` and a comment first, then `event: sync` with `data: {}` (at most one per 100 ms) whenever the installation’s documents may have changed, ' +
              'a comment line as heartbeat, and the end of the stream after the idle time (reconnect)',
            type: 'event-stream',
          },
        },
        errors: { 401: 'unauthorized', 503: 'temporarily_unavailable: the server holds as many streams as it may (Retry-After)' },
      },
      async (c) => answer(c),
    ),
  );

  // The live badge (issue 27 point 5): the same stream, also carrying the inbox's unread count.
  app.get(
    '/v1/sdk/inbox/events',
    guards.installation,
    described(
      {
        summary: 'The live inbox badge: a Server-Sent Events stream of the unread count, which also says when to sync (extension)',
        tags: ['mobile'],
        security: ['installation'],
        responses: {
          200: {
            description:
              'text/event-stream: `retry:` and a comment first, then `event: inbox` with `data: {"unreadCount": n}` at once and whenever the count changes (within a second, across processes), ' +
              '`event: sync` as GET /v1/sdk/sync/events sends it, heartbeat comments, and the end of the stream after the idle time (reconnect). One connection serves both.',
            type: 'event-stream',
          },
        },
        errors: { 401: 'unauthorized', 503: 'temporarily_unavailable: the server holds as many streams as it may (Retry-After)' },
      },
      async (c) => answer(c, { badge: true }),
    ),
  );
}
