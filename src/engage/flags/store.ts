import { textsByRows, type Sql } from '../../platform/store/sql';

/**
 * The flags context's writes and its administration reads (issue 26): `flags` (the current
 * definition of each flag, its version and the definitions revision of its last change),
 * `flag_versions` (every definition a flag had), `flag_schedules` (changes due at a time) and
 * `flag_exposures` (FLAG_EXPOSED counted once per installation per experiment revision). Every
 * query takes the environment. The sync reads through read-store.ts.
 */
export interface FlagAdminRow {
  key: string;
  status: 'ACTIVE' | 'ARCHIVED';
  version: number;
  revision: number;
  definition: string;
  configurationManaged: number;
  createdAt: string;
  updatedAt: string;
}

export interface FlagVersionRow {
  version: number;
  definition: string;
  origin: FlagOrigin;
  actor: string;
  createdAt: string;
}

export type FlagOrigin = 'API' | 'CLI' | 'APPLY' | 'SCHEDULE' | 'ROLLBACK';
export type ScheduleStatus = 'PENDING' | 'APPLIED' | 'CANCELLED' | 'FAILED';

export interface FlagScheduleRow {
  id: string;
  flagKey: string;
  dueMs: number;
  definition: string;
  status: ScheduleStatus;
  actor: string;
  createdAt: string;
  appliedVersion: number | null;
  appliedAt: string | null;
}

/** One FLAG_EXPOSED to count (operations ingest). */
export interface ExposureRow {
  flagKey: string;
  experimentId: string;
  /** The flag version that served the experiment (the document's `revision`). */
  revision: number;
  variantKey: string;
  exposedMs: number;
}

const FLAG = `key, status, version, revision, definition, configuration_managed AS "configurationManaged", created_at AS "createdAt", updated_at AS "updatedAt"`;
const VERSION = `version, definition, origin, actor, created_at AS "createdAt"`;
const SCHEDULE = `id, flag_key AS "flagKey", due_ms AS "dueMs", definition, status, actor, created_at AS "createdAt", applied_version AS "appliedVersion", applied_at AS "appliedAt"`;

const SQL = {
  insert: `INSERT INTO flags (environment_id, key, status, version, revision, definition, configuration_managed, created_at, updated_at)
    VALUES (?, ?, ?, 1, ?, ?, 0, ?, ?) ON CONFLICT (environment_id, key) DO NOTHING`,
  // Conditional on the version read: a lost race never overwrites another writer's version.
  replace: `UPDATE flags SET status = ?, version = ?, revision = ?, definition = ?, updated_at = ? WHERE environment_id = ? AND key = ? AND version = ?`,
  find: `SELECT ${FLAG} FROM flags WHERE environment_id = ? AND key = ?`,
  page: `SELECT ${FLAG} FROM flags WHERE environment_id = ? ORDER BY key LIMIT ? OFFSET ?`,
  all: `SELECT ${FLAG} FROM flags WHERE environment_id = ? ORDER BY key`,
  mark: 'UPDATE flags SET configuration_managed = 1 WHERE environment_id = ? AND key = ? AND configuration_managed = 0',
  insertVersion: `INSERT INTO flag_versions (environment_id, flag_key, version, definition, origin, actor, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  version: `SELECT ${VERSION} FROM flag_versions WHERE environment_id = ? AND flag_key = ? AND version = ?`,
  versions: `SELECT version, origin, actor, created_at AS "createdAt" FROM flag_versions WHERE environment_id = ? AND flag_key = ? ORDER BY version DESC LIMIT ? OFFSET ?`,
  insertSchedule: `INSERT INTO flag_schedules (id, environment_id, flag_key, due_ms, definition, status, actor, created_at) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?)`,
  schedule: `SELECT ${SCHEDULE} FROM flag_schedules WHERE environment_id = ? AND id = ?`,
  schedules: `SELECT ${SCHEDULE} FROM flag_schedules WHERE environment_id = ? AND flag_key = ? AND (? = '' OR status = ?) ORDER BY due_ms, id LIMIT ? OFFSET ?`,
  pendingCount: `SELECT COUNT(*) AS n FROM flag_schedules WHERE environment_id = ? AND flag_key = ? AND status = 'PENDING'`,
  // PENDING → APPLIED|CANCELLED|FAILED once: the condition makes a second run (or a cancel that raced it) change nothing.
  settleSchedule: `UPDATE flag_schedules SET status = ?, applied_version = ?, applied_at = ? WHERE environment_id = ? AND id = ? AND status = 'PENDING'`,
  exposureCounts: `SELECT experiment_id AS "experimentId", revision, variant_key AS "variantKey", COUNT(*) AS n FROM flag_exposures
    WHERE environment_id = ? AND flag_key = ? GROUP BY experiment_id, revision, variant_key ORDER BY experiment_id, revision, variant_key`,
} as const;

/**
 * The definitions of the (flag, version) pairs a batch's exposures name, in one statement: only
 * pairs that exist come back (an exposure of any other is not counted, exposures.ts).
 */
const versionDefinitionsText = textsByRows(
  (n) => `WITH v (f, r) AS (VALUES ${new Array<string>(n).fill('(?, CAST(? AS BIGINT))').join(', ')})
    SELECT fv.flag_key AS "flagKey", fv.version, fv.definition FROM v
    JOIN flag_versions fv ON fv.environment_id = ? AND fv.flag_key = v.f AND fv.version = v.r`,
);

/** Rows per exposures statement (as the ledger's, operations/store.ts). */
const EXPOSURE_ROWS = 100;
/**
 * One statement per batch (up to 100 exposures): the rows as a VALUES list, kept only for flags
 * the environment has (a join on the primary key), the first of each (environment, flag,
 * experiment, revision, installation) kept. `WHERE true`: SQLite's parser needs it before an
 * upsert clause of an INSERT … SELECT with a join.
 */
const exposuresText = textsByRows(
  (n) => `WITH v (e, f, x, r, i, k, m) AS (VALUES ${new Array<string>(n).fill('(?, ?, ?, CAST(? AS BIGINT), ?, ?, CAST(? AS BIGINT))').join(', ')})
    INSERT INTO flag_exposures (environment_id, flag_key, experiment_id, revision, installation_id, variant_key, exposed_ms)
    SELECT v.e, v.f, v.x, v.r, v.i, v.k, v.m FROM v JOIN flags ON flags.environment_id = v.e AND flags.key = v.f WHERE true
    ON CONFLICT DO NOTHING`,
);

const num = <T extends { version?: unknown; revision?: unknown }>(r: T): T => ({ ...r, ...(r.version !== undefined ? { version: Number(r.version) } : {}), ...(r.revision !== undefined ? { revision: Number(r.revision) } : {}) });
const schedule = (r: FlagScheduleRow): FlagScheduleRow => ({ ...r, dueMs: Number(r.dueMs), appliedVersion: r.appliedVersion === null ? null : Number(r.appliedVersion) });

export function createFlagStore(db: Sql) {
  return {
    /** False when the environment has a flag of that key already. */
    async insert(environmentId: string, key: string, status: string, revision: number, definition: string, at: string): Promise<boolean> {
      return (await db.run(SQL.insert, [environmentId, key, status, revision, definition, at, at])) === 1;
    },
    /** The flag's next version, if it is still at `fromVersion`. */
    async replace(environmentId: string, key: string, fromVersion: number, next: { status: string; version: number; revision: number; definition: string }, at: string): Promise<boolean> {
      return (await db.run(SQL.replace, [next.status, next.version, next.revision, next.definition, at, environmentId, key, fromVersion])) === 1;
    },
    async find(environmentId: string, key: string): Promise<FlagAdminRow | undefined> {
      const r = await db.get<FlagAdminRow>(SQL.find, [environmentId, key]);
      return r && num(r);
    },
    page: async (environmentId: string, limit: number, offset: number) => (await db.all<FlagAdminRow>(SQL.page, [environmentId, limit, offset])).map(num),
    all: async (environmentId: string) => (await db.all<FlagAdminRow>(SQL.all, [environmentId])).map(num),
    /** Sets `engage apply`'s mark; false when it was set already. */
    async mark(environmentId: string, key: string): Promise<boolean> {
      return (await db.run(SQL.mark, [environmentId, key])) === 1;
    },
    async insertVersion(environmentId: string, key: string, v: { version: number; definition: string; origin: FlagOrigin; actor: string }, at: string): Promise<void> {
      await db.run(SQL.insertVersion, [environmentId, key, v.version, v.definition, v.origin, v.actor, at]);
    },
    async version(environmentId: string, key: string, version: number): Promise<FlagVersionRow | undefined> {
      const r = await db.get<FlagVersionRow>(SQL.version, [environmentId, key, version]);
      return r && num(r);
    },
    /** Newest first, without definitions. */
    versions: async (environmentId: string, key: string, limit: number, offset: number) =>
      (await db.all<Omit<FlagVersionRow, 'definition'>>(SQL.versions, [environmentId, key, limit, offset])).map(num),
    async insertSchedule(environmentId: string, s: { id: string; flagKey: string; dueMs: number; definition: string; actor: string }, at: string): Promise<void> {
      await db.run(SQL.insertSchedule, [s.id, environmentId, s.flagKey, s.dueMs, s.definition, s.actor, at]);
    },
    async schedule(environmentId: string, id: string): Promise<FlagScheduleRow | undefined> {
      const r = await db.get<FlagScheduleRow>(SQL.schedule, [environmentId, id]);
      return r && schedule(r);
    },
    /** The flag's scheduled changes by due time, of one status ('' for every status). */
    schedules: async (environmentId: string, key: string, status: ScheduleStatus | '', limit: number, offset: number) =>
      (await db.all<FlagScheduleRow>(SQL.schedules, [environmentId, key, status, status, limit, offset])).map(schedule),
    pendingCount: async (environmentId: string, key: string) => Number((await db.get<{ n: number }>(SQL.pendingCount, [environmentId, key]))!.n),
    /** PENDING → `status`; false when it was not PENDING any more. */
    async settleSchedule(environmentId: string, id: string, status: Exclude<ScheduleStatus, 'PENDING'>, appliedVersion: number | null, at: string): Promise<boolean> {
      return (await db.run(SQL.settleSchedule, [status, appliedVersion, at, environmentId, id])) === 1;
    },
    /** Counts exposures of flags the environment has; the first per installation and experiment revision. */
    /** The stored definitions of those (flag, version) pairs of the environment that exist (at most EXPOSURE_ROWS pairs a statement). */
    async versionDefinitions(environmentId: string, pairs: readonly { flagKey: string; version: number }[]): Promise<{ flagKey: string; version: number; definition: string }[]> {
      const out: { flagKey: string; version: number; definition: string }[] = [];
      for (let i = 0; i < pairs.length; i += EXPOSURE_ROWS) {
        const part = pairs.slice(i, i + EXPOSURE_ROWS);
        const params: unknown[] = [];
        for (const p of part) params.push(p.flagKey, p.version);
        params.push(environmentId);
        for (const r of await db.all<{ flagKey: string; version: number; definition: string }>(versionDefinitionsText(part.length), params)) out.push({ ...r, version: Number(r.version) });
      }
      return out;
    },
    async recordExposures(environmentId: string, installationId: string, rows: readonly ExposureRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += EXPOSURE_ROWS) {
        const part = rows.slice(i, i + EXPOSURE_ROWS);
        const params: unknown[] = [];
        for (const r of part) params.push(environmentId, r.flagKey, r.experimentId, r.revision, installationId, r.variantKey, r.exposedMs);
        await db.run(exposuresText(part.length), params);
      }
    },
    exposureCounts: async (environmentId: string, key: string) =>
      (await db.all<{ experimentId: string; revision: number; variantKey: string; n: number }>(SQL.exposureCounts, [environmentId, key])).map((r) => ({
        experimentId: r.experimentId,
        revision: Number(r.revision),
        variantKey: r.variantKey,
        exposures: Number(r.n),
      })),
  };
}

export type FlagStore = ReturnType<typeof createFlagStore>;
