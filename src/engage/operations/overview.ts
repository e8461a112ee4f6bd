import type { OperationOverviewStore } from './overview-store';

/** What the environment overview (issue 24 point 1) reads of the operations ledger: operations received since a time, by status. */
export function createOperationOverview(deps: { store: { operationOverview: OperationOverviewStore } }) {
  return {
    async ingestedSince(environmentId: string, sinceMs: number): Promise<{ accepted: number; rejected: number }> {
      const out = { accepted: 0, rejected: 0 };
      for (const r of await deps.store.operationOverview.ingestedSince(environmentId, sinceMs)) {
        if (r.status === 'ACCEPTED') out.accepted = Number(r.n);
        else if (r.status === 'REJECTED') out.rejected = Number(r.n);
      }
      return out;
    },
    /** Operations received in [fromMs, toMs) by minute (number since the epoch), accepted and rejected. */
    async perMinute(environmentId: string, fromMs: number, toMs: number): Promise<Map<number, { accepted: number; rejected: number }>> {
      const out = new Map<number, { accepted: number; rejected: number }>();
      for (const r of await deps.store.operationOverview.perMinute(environmentId, fromMs, toMs)) {
        const minute = Number(r.minute);
        const m = out.get(minute) ?? { accepted: 0, rejected: 0 };
        if (r.status === 'ACCEPTED') m.accepted = Number(r.n);
        else if (r.status === 'REJECTED') m.rejected = Number(r.n);
        out.set(minute, m);
      }
      return out;
    },
  };
}

export type OperationOverview = ReturnType<typeof createOperationOverview>;
