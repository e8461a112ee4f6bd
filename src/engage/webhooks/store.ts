import type { Sql } from '../../platform/store/sql';

/**
 * Each environment's webhook signing secrets (engage/webhooks owns `webhook_secrets`), sealed.
 * The highest generation is the current secret; a rotated one signs until `retires_ms`. Every
 * query takes the environment. The writes are conditional: the first secret and each rotation
 * insert a generation that is unique per environment, so of two concurrent ones only one wins.
 */
export interface WebhookSecretRow {
  id: string;
  generation: number;
  sealed: string;
  createdAt: string;
  createdMs: number;
  retiresMs: number | null;
}

const COLUMNS = `id, generation, sealed, created_at AS "createdAt", created_ms AS "createdMs", retires_ms AS "retiresMs"`;
const LIVE = '(retires_ms IS NULL OR retires_ms > ?)';

const SQL = {
  live: `SELECT ${COLUMNS} FROM webhook_secrets WHERE environment_id = ? AND ${LIVE} ORDER BY generation DESC`,
  lastGeneration: 'SELECT MAX(generation) AS g FROM webhook_secrets WHERE environment_id = ?',
  insert: `INSERT INTO webhook_secrets (id, environment_id, generation, sealed, created_at, created_ms, retires_ms) VALUES (?, ?, ?, ?, ?, ?, NULL)
    ON CONFLICT (environment_id, generation) DO NOTHING`,
  // Every older live secret retires at `until` at the latest (one already retiring sooner keeps its time).
  retireOlder: `UPDATE webhook_secrets SET retires_ms = CASE WHEN retires_ms IS NULL OR retires_ms > ? THEN ? ELSE retires_ms END
    WHERE environment_id = ? AND generation < ? AND ${LIVE}`,
  deleteRetired: 'DELETE FROM webhook_secrets WHERE environment_id = ? AND retires_ms IS NOT NULL AND retires_ms <= ?',
} as const;

const row = (r: WebhookSecretRow): WebhookSecretRow => ({
  ...r,
  generation: Number(r.generation),
  createdMs: Number(r.createdMs),
  retiresMs: r.retiresMs === null ? null : Number(r.retiresMs),
});

export function createWebhookSecretStore(db: Sql) {
  return {
    /** The secrets that sign at `nowMs`, newest first. */
    async live(environmentId: string, nowMs: number): Promise<WebhookSecretRow[]> {
      return (await db.all<WebhookSecretRow>(SQL.live, [environmentId, nowMs])).map(row);
    },
    async lastGeneration(environmentId: string): Promise<number> {
      return Number((await db.get<{ g: number | null }>(SQL.lastGeneration, [environmentId]))?.g ?? 0);
    },
    /** Inserts the secret of `generation`; false when that generation exists already (another rotation or first use won). */
    async insert(environmentId: string, r: Omit<WebhookSecretRow, 'retiresMs'>): Promise<boolean> {
      return (await db.run(SQL.insert, [r.id, environmentId, r.generation, r.sealed, r.createdAt, r.createdMs])) === 1;
    },
    /** Secrets older than `generation` still live at `nowMs` retire at `untilMs` at the latest; how many. */
    async retireOlder(environmentId: string, generation: number, nowMs: number, untilMs: number): Promise<number> {
      return db.run(SQL.retireOlder, [untilMs, untilMs, environmentId, generation, nowMs]);
    },
    /** Forgets the secrets that no longer sign. */
    async deleteRetired(environmentId: string, nowMs: number): Promise<number> {
      return db.run(SQL.deleteRetired, [environmentId, nowMs]);
    },
  };
}

export type WebhookSecretStore = ReturnType<typeof createWebhookSecretStore>;
