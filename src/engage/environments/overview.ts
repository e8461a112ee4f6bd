import type { Clock } from '../../platform/clock';
import type { AppRow, EnvironmentRow } from './store';

/** One group of installations as profile state counts them (engage/profiles/overview.ts). */
export interface InstallationGroup {
  appId: string;
  platform: 'IOS' | 'ANDROID';
  bindingState: string;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  tokenHeld: number;
  n: number;
}

type Counts<K extends string> = Record<K, number>;

/**
 * What the overview reads, each through the owning context's service (wired in
 * engage/services.ts): environments never import the other contexts.
 */
export interface OverviewSources {
  apps(environmentId: string): Promise<Pick<AppRow, 'id' | 'name' | 'platform' | 'status'>[]>;
  installationGroups(environmentId: string): Promise<InstallationGroup[]>;
  /** Messaging's readiness rule (messaging/readiness.ts): undefined when an installation so placed may receive a push. */
  notReady(i: { appStatus: 'ACTIVE' | 'DISABLED'; platform: 'IOS' | 'ANDROID'; privacy: string; pushSubscription: string; pushPermission: string; pushToken: string | null }): string | undefined;
  operationsSince(environmentId: string, sinceMs: number): Promise<Counts<'accepted' | 'rejected'>>;
  sendsSince(environmentId: string, sinceMs: number): Promise<{ sends: number; deliveries: Record<string, number> }>;
  /** Operations received in [fromMs, toMs) by minute (its number since the epoch); minutes with none absent. */
  operationsPerMinute(environmentId: string, fromMs: number, toMs: number): Promise<Map<number, Counts<'accepted' | 'rejected'>>>;
  /** Deliveries created in [fromMs, toMs) by minute and state, test sends left out; minutes with none absent. */
  deliveriesPerMinute(environmentId: string, fromMs: number, toMs: number): Promise<Map<number, Record<string, number>>>;
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** The minutes of the per-minute series: the current one and the 59 before it. */
const MINUTES = 60;
/** The states of a delivery as the overview reports them (every one present, zero when none). */
const DELIVERY_STATES = ['PENDING', 'SENT', 'DELIVERED', 'OPENED', 'FAILED', 'EXPIRED'] as const;

/**
 * The environment overview (issue 24 point 1): installations in total, bound to an external id,
 * and push-ready per app (a token held and the conditions of messaging's readiness rule); the
 * operations received, the sends and their deliveries by state over the last hour and day (test
 * sends left out), and the last 60 minutes minute by minute (issue 25: the console's charts).
 * Every count is one index range aggregated in the database.
 */
export function createEnvironmentOverview(deps: OverviewSources & { clock: Clock }) {
  async function window(environmentId: string, sinceMs: number) {
    const [operations, sent] = await Promise.all([deps.operationsSince(environmentId, sinceMs), deps.sendsSince(environmentId, sinceMs)]);
    return { operations, sends: sent.sends, deliveries: sent.deliveries };
  }

  /**
   * The last 60 minutes minute by minute, oldest first, the current (partial) minute last: every
   * minute present (zeros when nothing happened), each named by its start. One grouped range per source.
   */
  async function perMinute(environmentId: string, nowMs: number) {
    const current = Math.floor(nowMs / MINUTE_MS);
    const first = current - (MINUTES - 1);
    const [ops, deliveries] = await Promise.all([
      deps.operationsPerMinute(environmentId, first * MINUTE_MS, (current + 1) * MINUTE_MS),
      deps.deliveriesPerMinute(environmentId, first * MINUTE_MS, (current + 1) * MINUTE_MS),
    ]);
    const minutes = Array.from({ length: MINUTES }, (_, i) => first + i);
    return {
      operations: minutes.map((m) => ({ minute: new Date(m * MINUTE_MS).toISOString(), accepted: ops.get(m)?.accepted ?? 0, rejected: ops.get(m)?.rejected ?? 0 })),
      deliveries: minutes.map((m) => {
        const d = deliveries.get(m);
        return { minute: new Date(m * MINUTE_MS).toISOString(), ...(Object.fromEntries(DELIVERY_STATES.map((s) => [s, d?.[s] ?? 0])) as Record<(typeof DELIVERY_STATES)[number], number>) };
      }),
    };
  }

  return async function overview(env: EnvironmentRow) {
    const now = deps.clock.now();
    const [apps, groups] = await Promise.all([deps.apps(env.id), deps.installationGroups(env.id)]);
    const perApp = new Map(apps.map((a) => [a.id, { appId: a.id, name: a.name, platform: a.platform, status: a.status, installations: 0, pushReady: 0 }]));
    let total = 0;
    let bound = 0;
    for (const g of groups) {
      total += g.n;
      if (g.bindingState === 'BOUND') bound += g.n;
      const app = perApp.get(g.appId);
      if (!app) continue;
      app.installations += g.n;
      const ready = deps.notReady({ appStatus: app.status, platform: g.platform, privacy: g.privacy, pushSubscription: g.pushSubscription, pushPermission: g.pushPermission, pushToken: g.tokenHeld ? 'held' : null });
      if (ready === undefined) app.pushReady += g.n;
    }
    const [lastHour, lastDay, minutes] = await Promise.all([
      window(env.id, now.getTime() - HOUR_MS),
      window(env.id, now.getTime() - 24 * HOUR_MS),
      perMinute(env.id, now.getTime()),
    ]);
    return {
      environmentId: env.id,
      at: now.toISOString(),
      installations: { total, bound, apps: [...perApp.values()] },
      lastHour,
      lastDay,
      perMinute: minutes,
    };
  };
}

export type EnvironmentOverview = ReturnType<typeof createEnvironmentOverview>;
