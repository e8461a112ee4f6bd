import type { InAppStore, InteractionIncrement } from './store';
import type { InteractionType, MessageDefinition } from './schemas';

/** What the ingest transaction carries to count interactions (operations/service.ts). */
export type InteractionTx = { inApp: Pick<InAppStore, 'byIds' | 'recordImpression' | 'countInteractions'> };

/** One accepted INTERACTION_TRACKED (spec 01). */
export interface InteractionRow {
  experienceId: string;
  messageId: string;
  variantId: string | null;
  type: InteractionType;
  occurredMs: number;
}

/**
 * Counts a batch's accepted INTERACTION_TRACKED operations (issue 27 "In-app messages" point 2),
 * in the ingest transaction: per message, variant, type and UTC day of the interaction. Only an
 * interaction a published message could have produced counts: `experienceId` is the id of one of
 * the environment's messages, `messageId` its key, and `variantId` one of its published variants
 * (null for a message without variants). Anything else stays ACCEPTED in the ledger and counts
 * nowhere, so a device cannot write its own rows or text into the results operators read (as for
 * FLAG_EXPOSED, docs/decisions.md "In-app messages").
 *
 * An IMPRESSION of a message with a frequency cap also counts in the installation's window for it;
 * the impression that reaches the cap answers `capReached`, and the caller moves the installation's
 * sync revision, so its next sync sends the message's tombstone.
 */
export async function countInteractionsIn(
  tx: InteractionTx,
  owner: { environmentId: string; installationId: string },
  rows: readonly InteractionRow[],
  nowMs: number,
): Promise<{ capReached: boolean }> {
  if (rows.length === 0) return { capReached: false };
  const ids = [...new Set(rows.map((r) => r.experienceId.toLowerCase()))];
  const messages = new Map((await tx.inApp.byIds(owner.environmentId, ids)).map((m) => [m.id.toLowerCase(), { key: m.key, definition: JSON.parse(m.publishedDefinition) as MessageDefinition }]));
  const increments = new Map<string, InteractionIncrement>();
  let capReached = false;
  for (const r of rows) {
    const id = r.experienceId.toLowerCase();
    const m = messages.get(id);
    if (!m || m.key !== r.messageId) continue;
    const variants = m.definition.variants;
    if (variants ? !variants.some((v) => v.key === r.variantId) : r.variantId !== null) continue;
    // An interaction reported from the future (a device's clock) counts now.
    const ms = Math.min(r.occurredMs, nowMs);
    const variantId = r.variantId ?? '';
    const day = new Date(ms).toISOString().slice(0, 10);
    const k = `${id}\u0000${variantId}\u0000${r.type}\u0000${day}`;
    const held = increments.get(k);
    if (held) held.count++;
    else increments.set(k, { messageId: id, variantId, type: r.type, day, count: 1 });
    const cap = m.definition.frequencyCap;
    if (r.type === 'IMPRESSION' && cap) {
      const w = await tx.inApp.recordImpression(owner.environmentId, owner.installationId, id, ms, cap.periodSeconds * 1000);
      if (w.count === cap.impressions) capReached = true;
    }
  }
  // In key order: two batches counting the same rows take their locks in one order.
  await tx.inApp.countInteractions(owner.environmentId, [...increments.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v));
  return { capReached };
}
