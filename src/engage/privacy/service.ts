import type { Clock } from '../../platform/clock';
import { digest } from '../../platform/crypto';
import type { TxRunner } from '../../platform/store/store';
import { REVOCATION_PREFIX, bearer } from '../installations/service';
import { EdgeErrors } from '../shared/errors';
import { checkOperationId } from './schemas';
import type { PrivacyStore } from './store';

type Stores = { privacy: PrivacyStore };

export function createPrivacyService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; scrubDeleted: () => void }) {
  const { store, clock } = deps;

  /**
   * PUT /v1/sdk/privacy/revocations/{operationId}. Spec 01 rule 6: only the revocation
   * credential; the installation is erased; a repeat (same credential) is again a 204.
   */
  async function revoke(authorization: string | undefined, operationId: string): Promise<void> {
    const token = bearer(authorization);
    if (!token || !token.startsWith(REVOCATION_PREFIX)) throw EdgeErrors.unauthorized();
    const d = digest(token);
    const at = clock.now().toISOString();
    await store.tx((tx) => {
      // Order: the credential (401), then the path (400), then the work or the repeat (204):
      // a repeat with a malformed operationId is as malformed as a first request.
      const inst = tx.privacy.findByRevocationDigest(d);
      if (!inst && !tx.privacy.wasRevoked(d)) throw EdgeErrors.unauthorized();
      const bad = checkOperationId(operationId);
      if (bad) throw EdgeErrors.fromViolation(bad);
      if (!inst) return;
      tx.privacy.erase(inst.environmentId, inst.id, d, operationId.toLowerCase(), at);
      // secure_delete zeroed the erased rows in their pages; older images of those pages stay
      // in the WAL until a checkpoint truncates it, done off this request (docs/decisions.md).
      tx.afterCommit(deps.scrubDeleted);
    });
  }

  return { revoke };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
