import { DomainError } from '../../platform/errors';

/** Problem codes of the inbox routes (docs/decisions.md "The inbox"). */
export const InboxErrors = {
  /** A page cursor this server did not issue, or issued to another installation, generation or sort order: page again without it. */
  invalidCursor: (why: string) => new DomainError('invalid', 'invalid_cursor', `cursor: ${why}; list again without one`),
  batchConflict: () => new DomainError('conflict', 'batch_conflict', 'batchId: was already used with different operations; send new operations under a new batchId.'),
};

/** errorCode values of REJECTED inbox operations. */
export const InboxOperationError = {
  /** The batch's generation is not the installation's current one: it never touches the current profile's inbox. */
  staleGeneration: 'stale_generation',
  /** MARK_READ, MARK_UNREAD and DELETE name their entry. */
  entryIdRequired: 'entry_id_required',
  /** MARK_ALL_READ takes no entry (entryId must be null). */
  entryIdNotAllowed: 'entry_id_not_allowed',
  /** No entry the installation can see has this id (never says whether one exists elsewhere). */
  entryNotFound: 'entry_not_found',
} as const;
