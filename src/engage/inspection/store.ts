import type { Sql } from '../../platform/store/sql';
import type { NewInstallation } from '../installations/service';

export interface EventRow {
  operationId: string;
  installationId: string;
  generation: number;
  type: string;
  occurredMs: number;
  payload: string;
}

/** An installation as `installations show` prints it: its registration fields, then its state. */
export type InstallationInspectRow = Omit<NewInstallation, 'credentialDigest' | 'revocationDigest' | 'recoveryDigest'> & {
  generation: number;
  bindingState: string;
  externalId: string | null;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushToken: string | null;
  updatedAt: string;
};

const TRACKED = `('EVENT_TRACKED','SCREEN_VIEWED','SCREEN_CLEARED','INTERACTION_TRACKED','PUSH_RECEIPT_RECORDED','FLAG_EXPOSED')`;

/** Read-only queries behind the operator commands `installations show` and `profiles show`. */
export function createInspectionStore(db: Sql) {
  const all = <T>(text: string, ...args: unknown[]) => db.all<T>(text, args);
  const get = <T>(text: string, ...args: unknown[]) => db.get<T>(text, args);
  return {
    async environmentOfInstallation(id: string): Promise<string | undefined> {
      return (await get<{ e: string }>('SELECT environment_id AS e FROM installations WHERE id = ?', id))?.e;
    },
    installation(environmentId: string, id: string) {
      return get<InstallationInspectRow>(
        `SELECT i.id, i.environment_id AS "environmentId", i.app_id AS "appId", i.platform, i.locale, i.timezone, i.sdk_version AS "sdkVersion",
                i.app_version AS "appVersion", i.app_build AS "appBuild", i.device_model AS "deviceModel", i.os_version AS "osVersion",
                i.generation, i.binding_state AS "bindingState", i.profile_id AS "profileId", p.external_id AS "externalId",
                i.privacy, i.push_subscription AS "pushSubscription", i.push_permission AS "pushPermission", i.push_token AS "pushToken",
                i.created_at AS "createdAt", i.updated_at AS "updatedAt"
           FROM installations i LEFT JOIN profiles p ON p.id = i.profile_id
          WHERE i.environment_id = ? AND i.id = ?`,
        environmentId,
        id,
      );
    },
    installationAttributes(installationId: string) {
      return all<{ key: string; value: string }>('SELECT key, value FROM installation_attributes WHERE installation_id = ? AND value IS NOT NULL ORDER BY key', installationId);
    },
    installationSubscriptions(installationId: string) {
      return all<{ list: string; subscribed: number }>('SELECT list, subscribed FROM installation_subscriptions WHERE installation_id = ? ORDER BY list', installationId);
    },
    generations(installationId: string) {
      return all<{ generation: number; profileId: string; bindingState: string; committedAt: string }>(
        'SELECT generation, profile_id AS "profileId", binding_state AS "bindingState", committed_at AS "committedAt" FROM installation_generations WHERE installation_id = ? ORDER BY generation',
        installationId,
      );
    },
    operationCounts(environmentId: string, installationId: string) {
      return all<{ type: string; status: string; n: number }>(
        'SELECT type, status, COUNT(*) AS n FROM operations WHERE environment_id = ? AND installation_id = ? GROUP BY type, status ORDER BY type, status',
        environmentId,
        installationId,
      );
    },
    profileByExternalId(environmentId: string, externalId: string) {
      return get<{ id: string; externalId: string; createdAt: string }>(
        'SELECT id, external_id AS "externalId", created_at AS "createdAt" FROM profiles WHERE environment_id = ? AND external_id = ?',
        environmentId,
        externalId,
      );
    },
    profileAttributes(profileId: string) {
      return all<{ key: string; value: string }>('SELECT key, value FROM profile_attributes WHERE profile_id = ? AND value IS NOT NULL ORDER BY key', profileId);
    },
    profileTags(profileId: string) {
      return all<{ tag: string }>('SELECT tag FROM profile_tags WHERE profile_id = ? AND present = 1 ORDER BY tag', profileId);
    },
    profileSubscriptions(profileId: string) {
      return all<{ list: string; channel: string; subscribed: number }>(
        'SELECT list, channel, subscribed FROM profile_subscriptions WHERE profile_id = ? ORDER BY list, channel',
        profileId,
      );
    },
    installationsOfProfile(environmentId: string, profileId: string) {
      return all<{ id: string; appId: string; platform: string; generation: number }>(
        'SELECT id, app_id AS "appId", platform, generation FROM installations WHERE environment_id = ? AND profile_id = ? ORDER BY created_at',
        environmentId,
        profileId,
      );
    },
    /** Tracked events attributed to the profile, newest first. */
    recentEvents(environmentId: string, profileId: string, limit: number): Promise<EventRow[]> {
      return all<EventRow>(
        `SELECT operation_id AS "operationId", installation_id AS "installationId", generation, type, occurred_ms AS "occurredMs", payload
           FROM operations WHERE profile_id = ? AND environment_id = ? AND status = 'ACCEPTED' AND type IN ${TRACKED}
          ORDER BY seq DESC LIMIT ?`,
        profileId,
        environmentId,
        limit,
      );
    },
  };
}

export type InspectionStore = ReturnType<typeof createInspectionStore>;
