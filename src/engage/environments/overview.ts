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
}

const HOUR_MS = 3_600_000;

/**
 * The environment overview (issue 24 point 1): installations in total, bound to an external id,
 * and push-ready per app (a token held and the conditions of messaging's readiness rule); the
 * operations received, the sends and their deliveries by state over the last hour and day (test
 * sends left out). Every count is one index range aggregated in the database.
 */
export function createEnvironmentOverview(deps: OverviewSources & { clock: Clock }) {
  async function window(environmentId: string, sinceMs: number) {
    const [operations, sent] = await Promise.all([deps.operationsSince(environmentId, sinceMs), deps.sendsSince(environmentId, sinceMs)]);
    return { operations, sends: sent.sends, deliveries: sent.deliveries };
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
    const [lastHour, lastDay] = await Promise.all([window(env.id, now.getTime() - HOUR_MS), window(env.id, now.getTime() - 24 * HOUR_MS)]);
    return {
      environmentId: env.id,
      at: now.toISOString(),
      installations: { total, bound, apps: [...perApp.values()] },
      lastHour,
      lastDay,
    };
  };
}

export type EnvironmentOverview = ReturnType<typeof createEnvironmentOverview>;
