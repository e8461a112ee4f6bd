import type { Sql } from '../../platform/store/sql';

/**
 * What the sync reads of the flags context (issue 26): every flag of an environment with the
 * definitions revision of its last change, the due times of pending scheduled changes, and the
 * variants an installation was served while anonymous (profile-sticky flags), which the sync
 * also records (this context owns flag_sticky_assignments).
 */
export interface FlagRow {
  key: string;
  status: 'ACTIVE' | 'ARCHIVED';
  version: number;
  revision: number;
  /** The validated FlagDefinition, as JSON. */
  definition: string;
}

export interface StickyRow {
  flagKey: string;
  /** '' for a rollout. */
  experimentId: string;
  variantKey: string;
}

const SQL = {
  flags: 'SELECT key, status, version, revision, definition FROM flags WHERE environment_id = ? ORDER BY key',
  due: `SELECT flag_key AS "flagKey", MIN(due_ms) AS "dueMs" FROM flag_schedules WHERE environment_id = ? AND status = 'PENDING' GROUP BY flag_key`,
  sticky: 'SELECT flag_key AS "flagKey", experiment_id AS "experimentId", variant_key AS "variantKey" FROM flag_sticky_assignments WHERE installation_id = ?',
  recordSticky: `INSERT INTO flag_sticky_assignments (installation_id, flag_key, environment_id, experiment_id, variant_key, assigned_ms) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (installation_id, flag_key) DO UPDATE SET experiment_id = excluded.experiment_id, variant_key = excluded.variant_key, assigned_ms = excluded.assigned_ms
    WHERE flag_sticky_assignments.experiment_id <> excluded.experiment_id OR flag_sticky_assignments.variant_key <> excluded.variant_key`,
} as const;

export function createFlagReadStore(db: Sql) {
  return {
    flags: async (environmentId: string): Promise<FlagRow[]> =>
      (await db.all<FlagRow>(SQL.flags, [environmentId])).map((r) => ({ ...r, version: Number(r.version), revision: Number(r.revision) })),
    /** The earliest pending scheduled change of each flag that has one. */
    dueChanges: async (environmentId: string): Promise<Map<string, number>> =>
      new Map((await db.all<{ flagKey: string; dueMs: number }>(SQL.due, [environmentId])).map((r) => [r.flagKey, Number(r.dueMs)])),
    sticky: (installationId: string) => db.all<StickyRow>(SQL.sticky, [installationId]),
    async recordSticky(environmentId: string, installationId: string, rows: readonly StickyRow[], atMs: number): Promise<void> {
      for (const r of rows) await db.run(SQL.recordSticky, [installationId, r.flagKey, environmentId, r.experimentId, r.variantKey, atMs]);
    },
  };
}

export type FlagReadStore = ReturnType<typeof createFlagReadStore>;
