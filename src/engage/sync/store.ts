import type { Sql } from '../../platform/store/sql';

/**
 * The sync's one read of its own (issue 26): everything a sync decides its path from, in one
 * statement (a consistent snapshot on either engine): the installation's generation, sync
 * revision and context columns, the current profile's external id and sync revision, and the
 * environment's definitions revision, tombstone horizon and refresh interval. Written by their
 * owners (profile state, engage/definitions); read here so that an unchanged installation costs
 * one primary-key lookup.
 */
export interface SyncHead {
  generation: number;
  installationRevision: number;
  profileId: string;
  bound: boolean;
  appId: string;
  platform: string;
  locale: string;
  timezone: string;
  appVersion: string;
  osVersion: string | null;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushTokenHeld: boolean;
  externalId: string | null;
  profileRevision: number;
  definitionsRevision: number;
  horizon: number;
  refreshAfterSeconds: number | null;
  /** In-app messages (issue 27): the environment's minimum interval and the revision of its last change. */
  inAppMinIntervalSeconds: number;
  inAppSettingsRevision: number;
}

const HEAD = `SELECT i.generation, i.sync_revision AS "installationRevision", i.profile_id AS "profileId", i.binding_state AS "bindingState",
    i.app_id AS "appId", i.platform, i.locale, i.timezone, i.app_version AS "appVersion", i.os_version AS "osVersion",
    i.privacy, i.push_subscription AS "pushSubscription", i.push_permission AS "pushPermission",
    CASE WHEN i.push_token IS NULL THEN 0 ELSE 1 END AS "pushTokenHeld",
    p.external_id AS "externalId", COALESCE(p.sync_revision, 0) AS "profileRevision",
    COALESCE(s.revision, 0) AS "definitionsRevision", COALESCE(s.horizon, 0) AS horizon, s.refresh_after_seconds AS "refreshAfterSeconds",
    COALESCE(s.in_app_min_interval_seconds, 30) AS "inAppMinIntervalSeconds", COALESCE(s.in_app_settings_revision, 0) AS "inAppSettingsRevision"
  FROM installations i
  LEFT JOIN profiles p ON p.id = i.profile_id
  LEFT JOIN sync_environments s ON s.environment_id = i.environment_id
  WHERE i.environment_id = ? AND i.id = ?`;

type RawHead = Omit<SyncHead, 'bound' | 'pushTokenHeld'> & { bindingState: string; pushTokenHeld: number };

export function createSyncStore(db: Sql) {
  return {
    async head(environmentId: string, installationId: string): Promise<SyncHead | undefined> {
      const r = await db.get<RawHead>(HEAD, [environmentId, installationId]);
      if (!r) return undefined;
      const { bindingState, ...rest } = r;
      return {
        ...rest,
        generation: Number(r.generation),
        installationRevision: Number(r.installationRevision),
        profileRevision: Number(r.profileRevision),
        definitionsRevision: Number(r.definitionsRevision),
        horizon: Number(r.horizon),
        refreshAfterSeconds: r.refreshAfterSeconds === null ? null : Number(r.refreshAfterSeconds),
        inAppMinIntervalSeconds: Number(r.inAppMinIntervalSeconds),
        inAppSettingsRevision: Number(r.inAppSettingsRevision),
        bound: bindingState === 'BOUND',
        pushTokenHeld: Number(r.pushTokenHeld) === 1,
      };
    },
  };
}

export type SyncStore = ReturnType<typeof createSyncStore>;
