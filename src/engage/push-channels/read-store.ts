import type { Sql } from '../../platform/store/sql';

/** Android notification channel importance (NotificationManager IMPORTANCE_MIN … HIGH). */
export const CHANNEL_IMPORTANCES = ['MIN', 'LOW', 'DEFAULT', 'HIGH'] as const;

/**
 * A push channel as stored (`push_channels.definition`, JSON): an Android notification channel
 * (an ANDROID app's) or an iOS notification category (an IOS app's), as its schema admits.
 */
export type PushChannelDefinition =
  | {
      key: string;
      kind: 'ANDROID_CHANNEL';
      name: string;
      description?: string;
      importance: (typeof CHANNEL_IMPORTANCES)[number];
      /** A sound resource name; null: silent; absent: the system's default sound. */
      sound?: string | null;
    }
  | {
      key: string;
      kind: 'IOS_CATEGORY';
      /** UNNotificationAction: identifier, title and options. */
      actions: { id: string; title: string; foreground?: boolean; destructive?: boolean; authenticationRequired?: boolean }[];
    };

export interface PushChannelRow {
  appId: string;
  key: string;
  revision: number;
  deleted: boolean;
  /** PushChannelDefinition as JSON. */
  definition: string;
}

const SQL = {
  channels: 'SELECT app_id AS "appId", key, revision, deleted, definition FROM push_channels WHERE environment_id = ? ORDER BY app_id, key',
} as const;

/** What the sync reads of the push-channels context (issue 26): every channel and category of an environment's apps, deleted ones included. */
export function createPushChannelReadStore(db: Sql) {
  return {
    channels: async (environmentId: string): Promise<PushChannelRow[]> =>
      (await db.all<{ appId: string; key: string; revision: number; deleted: number; definition: string }>(SQL.channels, [environmentId])).map((r) => ({
        appId: r.appId,
        key: r.key,
        revision: Number(r.revision),
        deleted: Number(r.deleted) === 1,
        definition: r.definition,
      })),
  };
}

export type PushChannelReadStore = ReturnType<typeof createPushChannelReadStore>;
