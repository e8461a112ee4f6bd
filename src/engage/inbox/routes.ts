import { noStore } from '../../platform/http/request';
import type { Hono } from 'hono';
import { inboxPageText } from './wire';
import type { EdgeEnv, EdgeGuards } from '../guards';
import { edgeRoutes } from '../shared/body';
import { EdgeErrors } from '../shared/errors';
import type { EngageServices } from '../services';
import { INBOX_CURSOR_LENGTH, SORT_ORDERS, type SortOrder } from './cursor';
import { InboxOperationBatch, InboxPage, InboxRenderingBatch, InboxRenderingRequest, InboxSortOrder, OperationBatchResult } from './schemas';
import { INBOX_PAGE, type InboxOperation } from './service';
import { T } from '../../platform/http/schema';

const once = (name: string, values: string[]): string | undefined => {
  if (values.length > 1) throw EdgeErrors.invalid(`${name}: must be given once`);
  return values[0];
};

export function mountInboxRoutes(app: Hono<EdgeEnv>, engage: EngageServices, guards: EdgeGuards): void {
  const route = edgeRoutes(engage.limits.maxRequestBytes);
  app.get(
    '/v1/sdk/inbox',
    guards.installation,
    route(
      {
        summary: 'A page of the installation’s inbox (its own entries and its current profile’s), with the unread count of the whole inbox',
        tags: ['mobile'],
        security: ['installation'],
        query: {
          cursor: {
            schema: T.String({ maxLength: INBOX_CURSOR_LENGTH }),
            description: 'the previous page’s nextCursor (opaque, signed); absent for the first page',
            read: (v: string[]) => once('cursor', v),
          },
          pageSize: {
            schema: T.Integer({ minimum: INBOX_PAGE.min, maximum: INBOX_PAGE.max, default: INBOX_PAGE.default }),
            description: `entries per page, ${INBOX_PAGE.min} to ${INBOX_PAGE.max} (default ${INBOX_PAGE.default})`,
            read: (v: string[]) => {
              const s = once('pageSize', v);
              if (s === undefined) return undefined;
              const n = /^[0-9]{1,3}$/.test(s) ? Number(s) : NaN;
              if (!(n >= INBOX_PAGE.min && n <= INBOX_PAGE.max)) throw EdgeErrors.invalid(`pageSize: must be an integer from ${INBOX_PAGE.min} to ${INBOX_PAGE.max}`);
              return n;
            },
          },
          sortOrder: {
            schema: InboxSortOrder,
            description: 'NEWEST_FIRST (default) or OLDEST_FIRST',
            read: (v: string[]) => {
              const s = once('sortOrder', v);
              if (s !== undefined && !(SORT_ORDERS as readonly string[]).includes(s)) throw EdgeErrors.invalid(`sortOrder: must be one of ${SORT_ORDERS.join(', ')}`);
              return s as SortOrder | undefined;
            },
          },
        },
        responses: { 200: { description: 'the page', schema: InboxPage } },
        errors: { 400: 'invalid_request, invalid_cursor', 401: 'unauthorized' },
      },
      async (c, input) => {
        noStore(c);
        // c.json's answer, each entry's payload text made once (wire.ts).
        return c.body(inboxPageText(await engage.inbox.page(c.get('installation'), input.query as { cursor?: string; pageSize?: number; sortOrder?: SortOrder })), 200, { 'content-type': 'application/json' });
      },
    ),
  );

  app.post(
    '/v1/sdk/inbox/operations:batch',
    guards.installation,
    route(
      {
        summary: 'Mark inbox entries read or unread, delete them, or mark the whole inbox read',
        tags: ['mobile'],
        security: ['installation'],
        body: { schema: InboxOperationBatch },
        responses: {
          202: { description: 'processed; individual operations may be REJECTED', schema: OperationBatchResult },
          200: { description: 'the batch was processed before: its first answer', schema: OperationBatchResult },
        },
        errors: { 400: 'invalid_request', 401: 'unauthorized', 409: 'batch_conflict', 413: 'payload_too_large' },
      },
      async (c, input) => {
        const body = input.body as { batchId: string; generation: number; operations: InboxOperation[] };
        const { replayed, body: answer } = await engage.inbox.operate(c.get('installation'), body);
        return c.body(answer, replayed ? 200 : 202, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      },
    ),
  );

  app.post(
    '/v1/sdk/inbox/renderings:resolve',
    guards.installation,
    route(
      {
        summary: 'The LAYOUT renderings of inbox entries the installation can see (others are omitted)',
        tags: ['mobile'],
        security: ['installation'],
        body: { schema: InboxRenderingRequest },
        responses: { 200: { description: 'the renderings, in the order asked for', schema: InboxRenderingBatch } },
        errors: { 400: 'invalid_request', 401: 'unauthorized', 413: 'payload_too_large' },
      },
      async (c, input) => {
        noStore(c);
        return c.json(await engage.inbox.renderings(c.get('installation'), (input.body as { entryIds: string[] }).entryIds));
      },
    ),
  );
}
