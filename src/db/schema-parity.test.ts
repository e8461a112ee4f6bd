import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as sqliteSchema from './schema';
import * as pgSchema from './schema-pg';

/**
 * The two engines' schemas declare the same tables, columns, keys and indexes (by name), so a
 * store's SQL runs on both: a table or column added to one must be added to the other.
 */
type Shape = Record<string, { columns: string[]; notNull: string[]; primaryKey: string[]; indexes: string[]; foreignKeys: string[] }>;

function shapeOf(tables: unknown[], config: (t: never) => ReturnType<typeof pgConfig> | ReturnType<typeof sqliteConfig>): Shape {
  const out: Shape = {};
  for (const t of tables) {
    const c = config(t as never);
    const pk = c.columns.filter((col) => col.primary).map((col) => col.name);
    for (const p of c.primaryKeys) pk.push(...p.columns.map((col) => col.name));
    out[c.name] = {
      columns: c.columns.map((col) => col.name).sort(),
      notNull: c.columns.filter((col) => col.notNull).map((col) => col.name).sort(),
      primaryKey: pk.sort(),
      indexes: c.indexes.map((i) => `${i.config.name}${i.config.unique ? ' unique' : ''}`).sort(),
      foreignKeys: c.foreignKeys
        .map((fk) => {
          const r = fk.reference();
          return `${r.columns.map((col) => col.name).join(',')} -> ${r.foreignColumns.map((col) => col.name).join(',')} ${fk.onDelete ?? ''}`;
        })
        .sort(),
    };
  }
  return out;
}

describe('SQLite and PostgreSQL schemas', () => {
  it('declare the same tables, columns, keys and indexes', () => {
    const sqlite = shapeOf(Object.values(sqliteSchema).filter((v) => v instanceof SQLiteTable), sqliteConfig);
    const pg = shapeOf(Object.values(pgSchema).filter((v) => v instanceof PgTable), pgConfig);
    expect(Object.keys(pg).sort()).toEqual(Object.keys(sqlite).sort());
    expect(Object.keys(pg).length).toBeGreaterThan(20);
    // The one declared difference: on PostgreSQL these tables have no foreign key to tenants
    // (migration 0015, schema-pg/identity.ts); they go with their tenant through users and grants.
    const tenantKey = 'tenant_id -> id cascade';
    for (const name of ['grants', 'authorization_codes', 'refresh_tokens']) {
      expect(sqlite[name].foreignKeys).toContain(tenantKey);
      expect(pg[name].foreignKeys).not.toContain(tenantKey);
      sqlite[name].foreignKeys = sqlite[name].foreignKeys.filter((k) => k !== tenantKey);
    }
    for (const name of Object.keys(sqlite)) expect({ [name]: pg[name] }).toEqual({ [name]: sqlite[name] });
  });
});
