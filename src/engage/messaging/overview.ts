import type { MessagingOverviewStore } from './overview-store';

/** The states of a delivery (src/db/schema/push.ts), every one present in the overview's counts. */
const STATES = ['PENDING', 'SENT', 'DELIVERED', 'OPENED', 'FAILED', 'EXPIRED'] as const;
export type DeliveryCounts = Record<(typeof STATES)[number], number>;

/**
 * What the environment overview (issue 24 point 1) reads of the send ledger: sends and their
 * deliveries by state created since a time, test sends left out.
 */
export function createMessagingOverview(deps: { store: { messagingOverview: MessagingOverviewStore } }) {
  const { store } = deps;
  return {
    async since(environmentId: string, sinceMs: number): Promise<{ sends: number; deliveries: DeliveryCounts }> {
      const deliveries = Object.fromEntries(STATES.map((s) => [s, 0])) as DeliveryCounts;
      for (const r of await store.messagingOverview.deliveriesSince(environmentId, sinceMs)) if (r.state in deliveries) deliveries[r.state as keyof DeliveryCounts] = Number(r.n);
      return { sends: await store.messagingOverview.sendsSince(environmentId, sinceMs), deliveries };
    },
    /** Deliveries created in [fromMs, toMs) by minute (number since the epoch) and state, test sends left out. */
    async deliveriesPerMinute(environmentId: string, fromMs: number, toMs: number): Promise<Map<number, DeliveryCounts>> {
      const out = new Map<number, DeliveryCounts>();
      for (const r of await store.messagingOverview.deliveriesPerMinute(environmentId, fromMs, toMs)) {
        if (!STATES.includes(r.state as (typeof STATES)[number])) continue;
        const minute = Number(r.minute);
        const m = out.get(minute) ?? (Object.fromEntries(STATES.map((s) => [s, 0])) as DeliveryCounts);
        m[r.state as keyof DeliveryCounts] = Number(r.n);
        out.set(minute, m);
      }
      return out;
    },
  };
}

export type MessagingOverview = ReturnType<typeof createMessagingOverview>;
