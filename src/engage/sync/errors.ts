import { DomainError } from '../../platform/errors';
import type { CursorRejection } from './cursor';

const WHY: Record<CursorRejection, string> = {
  malformed: 'cursor: is not a cursor this server issued; sync again without one',
  signature: 'cursor: its signature does not verify; sync again without one',
  installation: 'cursor: belongs to another installation; sync again without one',
};

/** Problem codes of POST /v1/sdk/sync (docs/decisions.md "The sync protocol"). */
export const SyncErrors = {
  /** Issue 26 point 2: the SDK drops its cursor and asks again without one. */
  invalidCursor: (reason: CursorRejection) => new DomainError('invalid', 'invalid_cursor', WHY[reason]),
};
