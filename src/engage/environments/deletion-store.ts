import { getTableConfig, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { environmentOwned, type EnvironmentRows } from '../../db/schema/environment-deletion';
import type { Sql } from '../../platform/store/sql';

const name = (c: SQLiteColumn) => c.name;
const tableName = (r: { table: EnvironmentRows['table'] }) => getTableConfig(r.table).name;
const list = (n: number) => new Array<string>(n).fill('?').join(', ');

/** The SQL of one registry entry, built once per process (the table names come from the registry, never from input). */
function statementsOf(r: EnvironmentRows) {
  const table = tableName(r);
  const key = r.key.map(name);
  const keyTuple = key.length === 1 ? key[0] : `(${key.join(', ')})`;
  const env = name(r.environment);
  const pick = `SELECT ${key.join(', ')} FROM ${table} WHERE ${env} = ? LIMIT ?`;
  return {
    table,
    /** A batch of the environment's rows, deleted by their keys (no children). */
    deleteBatch: `DELETE FROM ${table} WHERE ${keyTuple} IN (${pick})`,
    /** A batch of keys of rows with children. */
    pick: `SELECT ${key[0]} AS id FROM ${table} WHERE ${env} = ? LIMIT ?`,
    deleteKeys: (n: number) => `DELETE FROM ${table} WHERE ${key[0]} IN (${list(n)})`,
    children: (r.children ?? []).map((c) => ({ table: tableName(c), deleteOf: (n: number) => `DELETE FROM ${tableName(c)} WHERE ${name(c.owner)} IN (${list(n)})` })),
  };
}

/**
 * Executes the environment deletion registry (db/schema/environment-deletion.ts): each step
 * deletes one batch of one table's rows of the environment (with their children), by an index
 * that leads with the environment's id. db/owners.ts names this file among the dynamic writers:
 * like privacy erasure, it writes the tables each owning context declared in the registry.
 */
export function createEnvironmentDeletionStore(db: Sql) {
  const steps = environmentOwned.map(statementsOf);
  return {
    /** How many steps the registry has (the job goes through them in order). */
    steps: steps.length,
    /**
     * Deletes up to `limit` rows of the environment in the registry's table `step` (and their
     * children); the number of rows of that table deleted (0: the table holds none any more).
     */
    async deleteBatch(step: number, environmentId: string, limit: number): Promise<number> {
      const s = steps[step];
      if (s.children.length === 0) return db.run(s.deleteBatch, [environmentId, limit]);
      const ids = (await db.all<{ id: string }>(s.pick, [environmentId, limit])).map((r) => r.id);
      if (ids.length === 0) return 0;
      for (const c of s.children) await db.run(c.deleteOf(ids.length), ids);
      return db.run(s.deleteKeys(ids.length), ids);
    },
    /** The registry's table of a step (for logs and tests). */
    tableOf: (step: number) => steps[step].table,
  };
}

export type EnvironmentDeletionStore = ReturnType<typeof createEnvironmentDeletionStore>;
