/** Wire shapes of the inbox routes (spec 01 InboxEntry, InboxPage, InboxOperationBatch, InboxRendering*). */
import { DateTime, Enum, Int64, Strict, T, Uuid } from '../../platform/http/schema';
import { OperationBatchResult } from '../operations/schemas';
import { FreeObject, OrNull } from '../shared/schemas';
import { SORT_ORDERS } from './cursor';

export const InboxScope = Enum(['PROFILE', 'INSTALLATION']);
export const InboxSortOrder = Enum(SORT_ORDERS);
export const INBOX_OPERATION_TYPES = ['MARK_READ', 'MARK_UNREAD', 'DELETE', 'MARK_ALL_READ'] as const;

export const InboxEntry = T.Object({
  id: Uuid(),
  key: T.String(),
  payload: FreeObject({ description: 'the entry’s payload in the installation’s locale (or the template’s fallbacks)' }),
  scope: InboxScope,
  sentAt: DateTime(),
  expiresAt: T.Optional(OrNull(DateTime())),
  readAt: T.Optional(OrNull(DateTime())),
});

export const InboxPage = Strict({
  entries: T.Array(InboxEntry),
  nextCursor: OrNull(T.String({ description: 'opaque and signed; pass it as `cursor` for the next page' })),
  hasMore: T.Boolean(),
  unreadCount: T.Integer({ minimum: 0, description: 'unread entries of the whole inbox, not of the page' }),
});

export const InboxOperationBatch = Strict({
  batchId: Uuid(),
  generation: Int64(0),
  operations: T.Array(
    Strict({
      operationId: Uuid(),
      type: Enum(INBOX_OPERATION_TYPES),
      entryId: T.Optional(OrNull(Uuid({ description: 'required for MARK_READ, MARK_UNREAD and DELETE; null or absent for MARK_ALL_READ' }))),
    }),
    { minItems: 1, maxItems: 100 },
  ),
});

export const InboxRenderingRequest = Strict({ entryIds: T.Array(Uuid(), { minItems: 1, maxItems: 100, uniqueItems: true }) });

export const InboxRendering = Strict({
  entryId: Uuid(),
  renderer: Enum(['LAYOUT']),
  revision: Int64(1),
  surfaces: Strict({ SUMMARY: FreeObject(), DETAIL: FreeObject() }),
  expiresAt: OrNull(DateTime()),
});

export const InboxRenderingBatch = Strict({ renderings: T.Array(InboxRendering) });

export { OperationBatchResult };
