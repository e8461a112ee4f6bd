/**
 * A delivery deferred for the profile's quiet hours is checked again when it falls due (issue 26
 * PREFERENCES), before its first attempt, in the claim's transaction, against the preferences as
 * they are then, by the rules admission applied (service.ts, preferences/send-preferences.ts):
 * - the template version's list (still live, not critical): an installation or profile that left
 *   it meanwhile is not sent to: FAILED `LIST_UNSUBSCRIBED`;
 * - the quiet hours: moved so that the due time falls inside them again, the delivery is deferred
 *   to their new end, or, when that is past its TTL, ends FAILED `EXPIRES_IN_QUIET_HOURS`.
 * Everything else (privacy, push subscription and permission, token, app) is delivery.ts's
 * recheck of every attempt. Deliveries sent at once (deferredUntilMs null) and retries are not
 * looked at again: admission read their preferences an instant before.
 */
import { listAllows, liveListIn, quietHoursEnd, recipientPreferencesIn, type SendPreferencesTx } from '../preferences/send-preferences';
import type { ListDefinition } from '../preferences/read-store';
import type { ClaimedDelivery, MessagingStore } from './store';

export type DeferredVerdict = { kind: 'keep' } | { kind: 'withdraw'; reason: 'LIST_UNSUBSCRIBED' | 'EXPIRES_IN_QUIET_HOURS' } | { kind: 'redefer'; dueMs: number };

/** Whether the claimed delivery is one to check here: deferred at admission (or since), now at its first attempt. */
export const wasDeferred = (r: ClaimedDelivery) => r.deferredUntilMs !== null && r.deferredUntilMs !== undefined && Number(r.attempts) === 1;

/** The verdict for each deferred delivery of a claim, by delivery id (those not in the map: keep). */
export async function checkDeferred(tx: { messaging: MessagingStore } & SendPreferencesTx, due: readonly ClaimedDelivery[], now: Date): Promise<Map<string, DeferredVerdict>> {
  const out = new Map<string, DeferredVerdict>();
  const deferred = due.filter(wasDeferred);
  if (deferred.length === 0) return out;
  const context = await tx.messaging.deferredContext(deferred.map((r) => r.id));
  // Grouped by environment and list: one read of the list and of the recipients' preferences for each.
  const groups = new Map<string, { environmentId: string; list: string | null; rows: ClaimedDelivery[] }>();
  for (const r of deferred) {
    const c = context.get(r.id);
    if (!c) continue;
    const list = listOf(c.definition);
    const key = `${r.environmentId}\n${list ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { environmentId: r.environmentId, list, rows: [] }));
    g.rows.push(r);
  }
  for (const g of groups.values()) {
    // A list deleted since admission holds nobody back (as at admission: docs/decisions.md "Sends and preferences").
    const list: ListDefinition | undefined = g.list === null ? undefined : await liveListIn(tx, g.environmentId, g.list);
    const prefs = await recipientPreferencesIn(tx, g.environmentId, [...new Set(g.rows.map((r) => r.installationId))], list?.key ?? null);
    for (const r of g.rows) {
      const p = prefs.get(r.installationId);
      const type = context.get(r.id)!.recipientType as 'INSTALLATION_ID' | 'EXTERNAL_ID' | 'PROFILE';
      if (list && !listAllows(list, type, p)) {
        out.set(r.id, { kind: 'withdraw', reason: 'LIST_UNSUBSCRIBED' });
        continue;
      }
      const end = quietHoursEnd(p, now);
      if (!end) continue;
      out.set(r.id, end.getTime() >= Number(r.expiresMs) ? { kind: 'withdraw', reason: 'EXPIRES_IN_QUIET_HOURS' } : { kind: 'redefer', dueMs: end.getTime() });
    }
  }
  return out;
}

function listOf(definition: string): string | null {
  try {
    const l = (JSON.parse(definition) as { list?: unknown }).list;
    return typeof l === 'string' ? l : null;
  } catch {
    return null;
  }
}
