import type { DirectoryService, DirectoryTx } from '../directory/service';
import type { TokenPrincipal } from '../token-guards';
import { AdminErrors } from './errors';

/**
 * Issue 21 point 2: an operator holding only `identity.admin.users.manage` changed a full
 * operator's email to a mailbox of theirs, recovered the password and signed in with every
 * permission. So an operator may change, disable or delete a user of the control tenant (the
 * tenant whose directory grants the management API's permissions) only if they hold every
 * live permission that user holds (403 access_denied otherwise). Users of other tenants hold
 * no management permission: `identity.admin.users.manage` alone governs them.
 *
 * Returns the `authorize` hook of the users service, run in the change's transaction.
 */
export function withinRank(directory: Pick<DirectoryService, 'livePermissionsIn'>, operator: Pick<TokenPrincipal, 'tenantId' | 'subject'>) {
  return async (tx: DirectoryTx, user: { tenantId: string; subject: string }): Promise<void> => {
    if (user.tenantId !== operator.tenantId || user.subject === operator.subject) return;
    const held = new Set(await directory.livePermissionsIn(tx, operator.tenantId, operator.subject));
    const beyond = (await directory.livePermissionsIn(tx, user.tenantId, user.subject)).find((key) => !held.has(key));
    if (beyond !== undefined) throw AdminErrors.outranked(beyond);
  };
}
