/**
 * The claim's recheck (issue 21 point 15), run by the delivery worker (delivery.ts) in the
 * claim's transaction before any attempt: what a claimed delivery's installation, and for a
 * delivery held for quiet hours its preferences (deferred-check.ts), say now.
 */
import type { SendPreferencesTx } from '../preferences/send-preferences';
import { checkDeferred } from './deferred-check';
import { notReadyReason, type PushConditions } from './readiness';
import type { ClaimedDelivery, MessagingStore } from './store';

/**
 * Each claimed delivery's installation as it stands now. One that no longer qualifies (privacy
 * or push subscription opted out, permission denied, token cleared, app disabled) ends FAILED
 * with the admission's code as its reason and no request is made; one whose token changed since
 * admission goes to the current token (the same installation registered again; docs/decisions.md).
 * Returns the deliveries to attempt (`keep`) and those withdrawn (`skipped`); one erased since the
 * claim, or deferred again, is in neither.
 */
export async function recheckClaimed(
  tx: { messaging: MessagingStore } & SendPreferencesTx,
  due: ClaimedDelivery[],
  at: string,
): Promise<{ keep: ClaimedDelivery[]; skipped: ClaimedDelivery[] }> {
  const s = tx.messaging;
  const current = await s.currentRecipients(due.map((r) => r.id));
  // A delivery deferred for quiet hours: the preferences as they are at its due time (deferred-check.ts).
  const verdicts = await checkDeferred(tx, due, new Date(at));
  const keep: ClaimedDelivery[] = [];
  const skipped: ClaimedDelivery[] = [];
  for (const r of due) {
    const i = current.get(r.id);
    // Gone: erased with its installation since the claim read it; nothing to record.
    if (!i) continue;
    const reason = i.id === null ? 'NO_PUSH_TOKEN' : notReadyReason(i as PushConditions);
    const verdict = verdicts.get(r.id);
    const withdrawn = reason ?? (verdict?.kind === 'withdraw' ? verdict.reason : undefined);
    if (withdrawn) {
      await s.withdraw(r.id, withdrawn, at);
      skipped.push(r);
      continue;
    }
    if (verdict?.kind === 'redefer') {
      await s.redefer(r.id, verdict.dueMs, at);
      continue;
    }
    if (i.pushToken !== r.token) {
      await s.retarget(r.id, i.pushToken!, at);
      r.token = i.pushToken!;
    }
    keep.push(r);
  }
  return { keep, skipped };
}
