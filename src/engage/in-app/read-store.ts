import type { Sql } from '../../platform/store/sql';
import type { MessageStatus } from './schemas';

/**
 * What the sync reads of in-app messages (issue 27, the IN_APP module): the published messages of
 * an environment with the definitions revision of their last device-visible change, and an
 * installation's impression windows of capped messages.
 */
/** What the sync reads of a message: the published ones only (a draft never reached a device). */
export interface PublishedMessageRow {
  key: string;
  id: string;
  status: MessageStatus;
  publishedVersion: number;
  publishedDefinition: string;
  revision: number;
}

/** An installation's impressions of a capped message in its current window. */
export interface ImpressionWindow {
  messageId: string;
  windowStartMs: number;
  count: number;
}

const SQL = {
  published: `SELECT key, id, status, published_version AS "publishedVersion", published_definition AS "publishedDefinition", revision
    FROM in_app_messages WHERE environment_id = ? AND published_definition IS NOT NULL ORDER BY key`,
  grants: `SELECT message_id AS "messageId", until_ms AS "untilMs" FROM in_app_grants WHERE profile_id = ?`,
  impressions: `SELECT message_id AS "messageId", window_start_ms AS "windowStartMs", count FROM in_app_impressions WHERE installation_id = ?`,
} as const;

export function createInAppReadStore(db: Sql) {
  return {
    published: async (environmentId: string): Promise<PublishedMessageRow[]> =>
      (await db.all<PublishedMessageRow>(SQL.published, [environmentId])).map((r) => ({ ...r, publishedVersion: Number(r.publishedVersion), revision: Number(r.revision) })),
    /** Until when automations made messages eligible for the profile (message id → ms). */
    grants: async (profileId: string): Promise<Map<string, number>> =>
      new Map((await db.all<{ messageId: string; untilMs: number }>(SQL.grants, [profileId])).map((r) => [r.messageId, Number(r.untilMs)])),
    impressions: async (installationId: string): Promise<ImpressionWindow[]> =>
      (await db.all<ImpressionWindow>(SQL.impressions, [installationId])).map((r) => ({ messageId: r.messageId, windowStartMs: Number(r.windowStartMs), count: Number(r.count) })),
  };
}

export type InAppReadStore = ReturnType<typeof createInAppReadStore>;
