import type { Sql } from '../../platform/store/sql';
import type { InteractionType, MessageStatus } from './schemas';

/**
 * In-app messages' rows (issue 27; engage/in-app owns in_app_messages, in_app_interactions and
 * in_app_impressions): a message keeps its latest edit (`definition`, `version`) beside what syncs
 * serve (`published_definition`, `published_version`), so an edit of an ACTIVE message changes
 * nothing on devices until it is published. `revision` is the definitions revision
 * (engage/definitions) of the last change devices can see.
 */
export interface MessageRow {
  key: string;
  id: string;
  status: MessageStatus;
  version: number;
  definition: string;
  publishedVersion: number | null;
  publishedDefinition: string | null;
  revision: number;
  configurationManaged: number;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
}

export interface InteractionIncrement {
  messageId: string;
  variantId: string;
  type: InteractionType;
  day: string;
  count: number;
}

const MESSAGE = `key, id, status, version, definition, published_version AS "publishedVersion", published_definition AS "publishedDefinition", revision,
  configuration_managed AS "configurationManaged", created_at AS "createdAt", updated_at AS "updatedAt", published_at AS "publishedAt"`;

const SQL = {
  insert: `INSERT INTO in_app_messages (environment_id, key, id, status, version, definition, revision, created_at, updated_at)
    VALUES (?, ?, ?, 'DRAFT', 1, ?, ?, ?, ?) ON CONFLICT (environment_id, key) DO NOTHING`,
  // Conditional on the version read: a lost race never overwrites another writer's edit.
  replace: `UPDATE in_app_messages SET status = ?, version = ?, definition = ?, published_version = ?, published_definition = ?, revision = ?,
    updated_at = ?, published_at = ? WHERE environment_id = ? AND key = ? AND version = ? AND status = ?`,
  find: `SELECT ${MESSAGE} FROM in_app_messages WHERE environment_id = ? AND key = ?`,
  page: `SELECT ${MESSAGE} FROM in_app_messages WHERE environment_id = ? AND (? = '' OR status = ?) ORDER BY key LIMIT ? OFFSET ?`,
  mark: 'UPDATE in_app_messages SET configuration_managed = 1 WHERE environment_id = ? AND key = ? AND configuration_managed = 0',
  byIds: (n: number) => `SELECT id, key, published_definition AS "publishedDefinition" FROM in_app_messages
    WHERE environment_id = ? AND published_definition IS NOT NULL AND id IN (${new Array<string>(n).fill('?').join(', ')})`,
  // A new window when the last one is over; the count returned is the window's after this impression.
  impression: `INSERT INTO in_app_impressions (installation_id, message_id, environment_id, window_start_ms, count) VALUES (?, ?, ?, ?, 1)
    ON CONFLICT (installation_id, message_id) DO UPDATE SET
      count = CASE WHEN excluded.window_start_ms >= in_app_impressions.window_start_ms + ? THEN 1 ELSE in_app_impressions.count + 1 END,
      window_start_ms = CASE WHEN excluded.window_start_ms >= in_app_impressions.window_start_ms + ? THEN excluded.window_start_ms ELSE in_app_impressions.window_start_ms END
    RETURNING window_start_ms AS "windowStartMs", count`,
  interaction: `INSERT INTO in_app_interactions (environment_id, message_id, variant_id, type, day, count) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (message_id, variant_id, type, day) DO UPDATE SET count = in_app_interactions.count + excluded.count`,
  // An automation's grant: the later of the held and the new end.
  grant: `INSERT INTO in_app_grants (profile_id, message_id, environment_id, until_ms) VALUES (?, ?, ?, ?)
    ON CONFLICT (profile_id, message_id) DO UPDATE SET until_ms = CASE WHEN excluded.until_ms > in_app_grants.until_ms THEN excluded.until_ms ELSE in_app_grants.until_ms END`,
  results: `SELECT variant_id AS "variantId", type, day, SUM(count) AS n FROM in_app_interactions WHERE environment_id = ? AND message_id = ?
    AND day >= ? GROUP BY variant_id, type, day ORDER BY day, variant_id, type`,
} as const;

const num = (r: MessageRow): MessageRow => ({
  ...r,
  version: Number(r.version),
  revision: Number(r.revision),
  publishedVersion: r.publishedVersion === null ? null : Number(r.publishedVersion),
  configurationManaged: Number(r.configurationManaged),
});

export function createInAppStore(db: Sql) {
  return {
    /** False when the environment has a message of that key already. */
    async insert(environmentId: string, m: { key: string; id: string; definition: string; revision: number }, at: string): Promise<boolean> {
      return (await db.run(SQL.insert, [environmentId, m.key, m.id, m.definition, m.revision, at, at])) === 1;
    },
    /** The message's next state, if it is still at `from` (version and status). */
    async replace(
      environmentId: string,
      key: string,
      from: { version: number; status: MessageStatus },
      next: Pick<MessageRow, 'status' | 'version' | 'definition' | 'publishedVersion' | 'publishedDefinition' | 'revision' | 'publishedAt'>,
      at: string,
    ): Promise<boolean> {
      return (
        (await db.run(SQL.replace, [next.status, next.version, next.definition, next.publishedVersion, next.publishedDefinition, next.revision, at, next.publishedAt, environmentId, key, from.version, from.status])) === 1
      );
    },
    async find(environmentId: string, key: string): Promise<MessageRow | undefined> {
      const r = await db.get<MessageRow>(SQL.find, [environmentId, key]);
      return r && num(r);
    },
    /** One status, or every status for ''. */
    page: async (environmentId: string, status: MessageStatus | '', limit: number, offset: number) => (await db.all<MessageRow>(SQL.page, [environmentId, status, status, limit, offset])).map(num),
    async mark(environmentId: string, key: string): Promise<boolean> {
      return (await db.run(SQL.mark, [environmentId, key])) === 1;
    },
    /** The published definitions of those ids that are messages of the environment. */
    async byIds(environmentId: string, ids: readonly string[]): Promise<{ id: string; key: string; publishedDefinition: string }[]> {
      if (ids.length === 0) return [];
      return db.all(SQL.byIds(ids.length), [environmentId, ...ids]);
    },
    /** Counts one impression in the installation's window for the message; the window after it. */
    async recordImpression(environmentId: string, installationId: string, messageId: string, atMs: number, periodMs: number): Promise<{ windowStartMs: number; count: number }> {
      const r = (await db.get<{ windowStartMs: number; count: number }>(SQL.impression, [installationId, messageId, environmentId, atMs, periodMs, periodMs]))!;
      return { windowStartMs: Number(r.windowStartMs), count: Number(r.count) };
    },
    async countInteractions(environmentId: string, rows: readonly InteractionIncrement[]): Promise<void> {
      for (const r of rows) await db.run(SQL.interaction, [environmentId, r.messageId, r.variantId, r.type, r.day, r.count]);
    },
    async grant(environmentId: string, profileId: string, messageId: string, untilMs: number): Promise<void> {
      await db.run(SQL.grant, [profileId, messageId, environmentId, untilMs]);
    },
    results: async (environmentId: string, messageId: string, fromDay: string) =>
      (await db.all<{ variantId: string; type: InteractionType; day: string; n: number }>(SQL.results, [environmentId, messageId, fromDay])).map((r) => ({ ...r, n: Number(r.n) })),
  };
}

export type InAppStore = ReturnType<typeof createInAppStore>;
