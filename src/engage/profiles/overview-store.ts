import type { Sql } from '../../platform/store/sql';

/** One group of an environment's installations with the same app and push conditions (the overview, issue 24). */
export interface InstallationGroupRow {
  appId: string;
  platform: 'IOS' | 'ANDROID';
  bindingState: 'ANONYMOUS' | 'BOUND';
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  tokenHeld: number;
  n: number;
}

const SQL = {
  // One range of installations_environment, aggregated in the engine: a handful of groups come back, never the rows.
  groups: `SELECT app_id AS "appId", platform, binding_state AS "bindingState", privacy, push_subscription AS "pushSubscription",
      push_permission AS "pushPermission", CASE WHEN push_token IS NULL THEN 0 ELSE 1 END AS "tokenHeld", COUNT(*) AS n
    FROM installations WHERE environment_id = ?
    GROUP BY app_id, platform, binding_state, privacy, push_subscription, push_permission, CASE WHEN push_token IS NULL THEN 0 ELSE 1 END`,
} as const;

/** Read-only counts of profile state for the environment overview (engage/profiles owns the tables). */
export function createProfileOverviewStore(db: Sql) {
  return {
    installationGroups(environmentId: string): Promise<InstallationGroupRow[]> {
      return db.all<InstallationGroupRow>(SQL.groups, [environmentId]);
    },
  };
}

export type ProfileOverviewStore = ReturnType<typeof createProfileOverviewStore>;
