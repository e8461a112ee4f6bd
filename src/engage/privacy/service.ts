import type { Clock } from '../../platform/clock';
import { digest } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import { REVOCATION_PREFIX } from '../installations/service';
import type { SendErasure, SendLedgerTx } from '../messaging/send-erasure';
import type { PrivacyStore } from './store';

// The messaging context's store only through `sends.redactSendsIn`, its erasure of the send ledger.
type Stores = { privacy: PrivacyStore } & SendLedgerTx;

/** A revocation credential that is, or was, valid: its digest (a repeat after erasure is a 204). */
export interface RevocationPrincipal {
  digest: string;
}

export function createPrivacyService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; scrubDeleted: () => void; sends: SendErasure }) {
  const { store, clock } = deps;

  /**
   * PUT /v1/sdk/privacy/revocations/{operationId}. Spec 01 rule 6: only the revocation
   * credential; the installation is erased; a repeat (same credential) is again a 204.
   */
  /**
   * Spec 01 rule 6: only the revocation credential, never the installation credential. A
   * credential already used is still recognised, so the repeat answers 204 (its guard).
   */
  async function authenticate(token: string | undefined): Promise<RevocationPrincipal | undefined> {
    if (!token || !token.startsWith(REVOCATION_PREFIX)) return undefined;
    const d = digest(token);
    return (await store.privacy.findByRevocationDigest(d)) || (await store.privacy.wasRevoked(d)) ? { digest: d } : undefined;
  }

  async function revoke(r: RevocationPrincipal, operationId: string): Promise<void> {
    // The route checked the path (400) after the credential (401): a repeat with a malformed
    // operationId is as malformed as a first request. Then the work or the repeat (204).
    const d = r.digest;
    const at = clock.now().toISOString();
    await store.tx(async (tx) => {
      // Read again inside the write, and lock it: another request may have erased it since the
      // guard looked, and nothing of this installation may be written while it is erased.
      const inst = await tx.privacy.lockByRevocationDigest(d);
      if (!inst) return;
      const anonymous = await tx.privacy.anonymousProfiles(inst.environmentId, inst.id);
      // The send ledger keeps its rows but names neither any more (issue 21 point 16); before
      // the erasure below, which removes the index that finds those sends.
      await deps.sends.redactSendsIn(tx, inst.environmentId, [inst.id, ...anonymous]);
      await tx.privacy.erase(inst.environmentId, inst.id, anonymous, d, operationId.toLowerCase(), at);
      // secure_delete zeroed the erased rows in their pages; older images of those pages stay
      // in the WAL until a checkpoint truncates it, done off this request (docs/decisions.md).
      tx.afterCommit(deps.scrubDeleted);
    });
  }

  return { authenticate, revoke };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
