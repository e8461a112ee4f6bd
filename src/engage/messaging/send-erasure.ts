/**
 * Privacy erasure of the send ledger (issue 21 point 16). A send row stays (the idempotency
 * ledger: a retry of the sender still answers as a replay, never as a second send; and what
 * was sent, counted by app, platform and code, for the sender's audit), but an erased
 * installation, or an anonymous profile erased with it, is named nowhere in it any more:
 * - its id reads as the nil UUID (RFC 9562 §5.9), in the recipient and in the diagnostics,
 *   which keep their entries, apps, platforms and codes; the entry's delivery id is dropped
 *   (its delivery was erased with the installation);
 * - a send addressed to the erased installation or profile itself also loses its rendered
 *   content, as its deliveries did: it was a message to that device alone.
 * The request hash stays: a one-way digest that the replay check needs.
 */
import { redactSend } from './send-names';
import type { MessagingStore } from './store';
import type { MessagingInspectionStore } from './inspection-store';

export { ERASED_ID } from './send-names';

/** What a transaction hands redactSendsIn: the messaging context's store bound to it. */
export type SendLedgerTx = { messaging: MessagingStore; messagingInspection: MessagingInspectionStore };

/**
 * In privacy erasure's transaction (privacy/service.ts), before the installation's rows go
 * (push_send_recipients among them): every send of the environment naming one of `ids` (the
 * installation, the anonymous profiles erased with it) is redacted. The number of sends redacted.
 */
export async function redactSendsIn(tx: SendLedgerTx, environmentId: string, ids: readonly string[], externalId?: string): Promise<number> {
  const erased = new Set(ids);
  let n = 0;
  // The erasure of a person's profile (issue 24): a send addressed to its external id names the
  // person too; it is redacted as one addressed to an erased profile (recipient and content).
  if (externalId !== undefined)
    for (const send of await tx.messagingInspection.sendsToExternalId(environmentId, externalId)) {
      const redacted = redactSend({ ...send, recipientType: 'PROFILE' }, new Set([externalId, ...ids]));
      if (!redacted) continue;
      await tx.messaging.redactSend(environmentId, send.id, redacted.recipientValue, redacted.response);
      n++;
    }
  for (const send of await tx.messaging.sendsNaming(environmentId, ids)) {
    const redacted = redactSend(send, erased);
    if (!redacted) continue;
    await tx.messaging.redactSend(environmentId, send.id, redacted.recipientValue, redacted.response);
    n++;
  }
  return n;
}

export type SendErasure = { redactSendsIn: typeof redactSendsIn };
