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
import type { MessagingStore, SendRow } from './store';

export const ERASED_ID = '00000000-0000-0000-0000-000000000000';

interface StoredAnswer {
  renderedTitle?: string;
  renderedBody?: string;
  renderedDeepLink?: string;
  renderedCustomData?: Record<string, unknown>;
  diagnostics?: { installationId?: string; deliveryId?: string | null }[];
}

const NAMES_AN_ID = new Set(['INSTALLATION_ID', 'PROFILE']);

/** The installation and profile ids a send row names: how erasure finds it (push_send_recipients). */
export function idsNamedBy(send: Pick<SendRow, 'recipientType' | 'recipientValue' | 'response'>): string[] {
  const ids = new Set<string>();
  if (NAMES_AN_ID.has(send.recipientType)) ids.add(send.recipientValue);
  for (const d of (JSON.parse(send.response) as StoredAnswer).diagnostics ?? []) if (d.installationId) ids.add(d.installationId);
  ids.delete(ERASED_ID);
  return [...ids];
}

/** The send's recipient value and stored answer with `erased` redacted; undefined when it names none of them. */
export function redactSend(send: Pick<SendRow, 'recipientType' | 'recipientValue' | 'response'>, erased: ReadonlySet<string>): { recipientValue: string; response: string } | undefined {
  const answer = JSON.parse(send.response) as StoredAnswer;
  let changed = false;
  for (const d of answer.diagnostics ?? [])
    if (d.installationId && erased.has(d.installationId)) {
      d.installationId = ERASED_ID;
      d.deliveryId = null;
      changed = true;
    }
  let recipientValue = send.recipientValue;
  if (NAMES_AN_ID.has(send.recipientType) && erased.has(recipientValue)) {
    recipientValue = ERASED_ID;
    if (answer.renderedTitle !== undefined) answer.renderedTitle = '';
    if (answer.renderedBody !== undefined) answer.renderedBody = '';
    if (answer.renderedDeepLink !== undefined) answer.renderedDeepLink = '';
    if (answer.renderedCustomData !== undefined) answer.renderedCustomData = {};
    changed = true;
  }
  return changed ? { recipientValue, response: JSON.stringify(answer) } : undefined;
}

/** What a transaction hands redactSendsIn: the messaging context's store bound to it. */
export type SendLedgerTx = { messaging: MessagingStore };

/**
 * In privacy erasure's transaction (privacy/service.ts), before the installation's rows go
 * (push_send_recipients among them): every send of the environment naming one of `ids` (the
 * installation, the anonymous profiles erased with it) is redacted. The number of sends redacted.
 */
export async function redactSendsIn(tx: SendLedgerTx, environmentId: string, ids: readonly string[]): Promise<number> {
  const erased = new Set(ids);
  let n = 0;
  for (const send of await tx.messaging.sendsNaming(environmentId, ids)) {
    const redacted = redactSend(send, erased);
    if (!redacted) continue;
    await tx.messaging.redactSend(environmentId, send.id, redacted.recipientValue, redacted.response);
    n++;
  }
  return n;
}

export type SendErasure = { redactSendsIn: typeof redactSendsIn };
