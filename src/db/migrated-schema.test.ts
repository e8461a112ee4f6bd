import BetterSqlite3 from 'better-sqlite3';
import { getTableName, type SQL } from 'drizzle-orm';
import { getTableConfig as pgConfig, PgDialect, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteSyncDialect, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from '../../test/helpers/pg-cluster';
import { applyMigrations } from '../platform/store/migrations';
import { applyPgMigrations } from '../platform/store/pg-migrations';
import { openPostgres, type Pg } from '../platform/store/postgres';
import * as sqliteSchema from './schema';
import * as pgSchema from './schema-pg';

/**
 * The migrations are written by hand (0005 onward) and the drizzle tables are the row types the
 * stores are written against: each engine's migrated database must be what its declarations
 * say (tables, columns, types, nullability, primary keys, indexes, foreign keys), so neither copy can drift
 * from the other. schema-parity.test.ts keeps the two engines' declarations equal.
 *
 * Types are compared at the level each engine keeps: SQLite's column affinity (integer, text,
 * blob, real, numeric), PostgreSQL's `information_schema.columns.data_type`. Indexes by name,
 * uniqueness, columns in order and partial-index predicate; a unique constraint (drizzle's
 * `unique()`, a column's `.unique()`) by its columns only, as its index's name is the engine's.
 */
interface TableShape {
  columns: Record<string, string>; // name -> "type" or "type not null"
  primaryKey: string[];
  indexes: string[];
  foreignKeys: string[]; // "a, b -> table (x, y) on delete cascade"
}
type Shape = Record<string, TableShape>;

/** Predicates as text both sides agree on: no casts, parentheses or quotes, lower case. */
const predicate = (text: string) =>
  text
    .replace(/::[a-z ]+/gi, '')
    .replace(/[()"`]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

const foreignKeyText = (from: string[], table: string, to: string[], onDelete: string | undefined) =>
  `${from.join(', ')} -> ${table} (${to.join(', ')}) on delete ${(onDelete ?? 'no action').toLowerCase()}`;

const indexText = (name: string | undefined, unique: boolean, columns: string[], where: string | undefined) =>
  `${name ? `${name} ` : ''}${unique ? 'unique ' : ''}(${columns.join(', ')})${where ? ` where ${predicate(where)}` : ''}`;

type AnyConfig = ReturnType<typeof pgConfig> | ReturnType<typeof sqliteConfig>;

function declared(tables: unknown[], config: (t: never) => AnyConfig, typeOf: (sqlType: string) => string, render: (where: SQL) => string): Shape {
  const out: Shape = {};
  for (const t of tables) {
    const c = config(t as never);
    const primaryKey = c.columns.filter((col) => col.primary).map((col) => col.name);
    for (const p of c.primaryKeys) primaryKey.push(...p.columns.map((col) => col.name));
    const indexes = c.indexes.map((i) => {
      const cols = (i.config.columns as unknown[]).map((col) => (col as { name?: string }).name ?? '(expression)');
      return indexText(i.config.name, !!i.config.unique, cols, i.config.where ? render(i.config.where) : undefined);
    });
    for (const u of c.uniqueConstraints) indexes.push(indexText(undefined, true, u.columns.map((col) => col.name), undefined));
    for (const col of c.columns) if (col.isUnique) indexes.push(indexText(undefined, true, [col.name], undefined));
    out[c.name] = {
      columns: Object.fromEntries(c.columns.map((col) => [col.name, `${typeOf(col.getSQLType())}${col.notNull ? ' not null' : ''}`])),
      primaryKey: primaryKey.sort(),
      indexes: indexes.sort(),
      foreignKeys: c.foreignKeys
        .map((fk) => {
          const r = fk.reference();
          return foreignKeyText(r.columns.map((col) => col.name), getTableName(r.foreignTable), r.foreignColumns.map((col) => col.name), fk.onDelete);
        })
        .sort(),
    };
  }
  return out;
}

/** SQLite's type affinity of a declared column type (https://sqlite.org/datatype3.html §3.1). */
function affinity(type: string): string {
  const t = type.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(t)) return 'text';
  if (t === '' || t.includes('BLOB')) return 'blob';
  if (/REAL|FLOA|DOUB/.test(t)) return 'real';
  return 'numeric';
}

/** PostgreSQL's data_type of a drizzle column type: serials are integers with a sequence. */
const pgDataType = (type: string) => ({ serial: 'integer', bigserial: 'bigint', smallserial: 'smallint' })[type] ?? type;

/** The tables engage keeps for itself besides the declared ones (the migration ledger). */
const UNDECLARED = new Set(['engage_migrations']);

function sqliteMigrated(db: BetterSqlite3.Database, namedIndexes: Set<string>): Shape {
  const out: Shape = {};
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`).all() as { name: string }[];
  for (const { name } of tables) {
    if (UNDECLARED.has(name)) continue;
    const cols = db.prepare(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY cid`).all(name) as { name: string; type: string; nn: number; pk: number }[];
    const indexes: string[] = [];
    const list = db.prepare('SELECT name, "unique" AS u, origin FROM pragma_index_list(?)').all(name) as { name: string; u: number; origin: string }[];
    for (const ix of list) {
      if (ix.origin === 'pk') continue;
      const keys = db.prepare('SELECT name FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno').all(ix.name) as { name: string | null }[];
      const text = (db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).get(ix.name) as { sql: string | null } | undefined)?.sql;
      const where = text ? /\sWHERE\s([\s\S]*)$/i.exec(text)?.[1] : undefined;
      const named = ix.origin === 'c' && namedIndexes.has(ix.name);
      indexes.push(indexText(named || !ix.u ? ix.name : undefined, !!ix.u, keys.map((k) => k.name ?? '(expression)'), where));
    }
    const fks = new Map<number, { table: string; from: string[]; to: string[]; onDelete: string }>();
    for (const f of db.prepare('SELECT id, "table" AS t, "from" AS f, "to" AS o, on_delete AS d FROM pragma_foreign_key_list(?) ORDER BY id, seq').all(name) as { id: number; t: string; f: string; o: string; d: string }[]) {
      const fk = fks.get(f.id) ?? { table: f.t, from: [], to: [], onDelete: f.d };
      fk.from.push(f.f);
      fk.to.push(f.o);
      fks.set(f.id, fk);
    }
    out[name] = {
      columns: Object.fromEntries(cols.map((c) => [c.name, `${affinity(c.type)}${c.nn ? ' not null' : ''}`])),
      primaryKey: cols.filter((c) => c.pk > 0).map((c) => c.name).sort(),
      indexes: indexes.sort(),
      foreignKeys: [...fks.values()].map((fk) => foreignKeyText(fk.from, fk.table, fk.to, fk.onDelete)).sort(),
    };
  }
  return out;
}

async function pgMigrated(pg: Pg, namedIndexes: Set<string>): Promise<Shape> {
  const out: Shape = {};
  const { rows: cols } = await pg.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`,
  );
  for (const c of cols) {
    if (UNDECLARED.has(c.table_name)) continue;
    out[c.table_name] ??= { columns: {}, primaryKey: [], indexes: [], foreignKeys: [] };
    out[c.table_name].columns[c.column_name] = `${c.data_type}${c.is_nullable === 'NO' ? ' not null' : ''}`;
  }
  const { rows: indexes } = await pg.query<{ table_name: string; name: string; is_unique: boolean; is_primary: boolean; columns: (string | null)[]; predicate: string | null }>(
    `SELECT t.relname AS table_name, i.relname AS name, ix.indisunique AS is_unique, ix.indisprimary AS is_primary,
            pg_get_expr(ix.indpred, ix.indrelid) AS predicate,
            ARRAY(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                    LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                   ORDER BY k.n) AS columns
       FROM pg_index ix
       JOIN pg_class i ON i.oid = ix.indexrelid
       JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace ns ON ns.oid = t.relnamespace
      WHERE ns.nspname = current_schema()`,
  );
  for (const ix of indexes) {
    const table = out[ix.table_name];
    if (!table) continue; // the ledger's
    const columns = ix.columns.map((c) => c ?? '(expression)');
    if (ix.is_primary) {
      table.primaryKey = columns.sort();
      continue;
    }
    const named = namedIndexes.has(ix.name);
    table.indexes.push(indexText(named || !ix.is_unique ? ix.name : undefined, ix.is_unique, columns, ix.predicate ?? undefined));
  }
  const ON_DELETE: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };
  const { rows: fks } = await pg.query<{ table_name: string; foreign_table: string; from_columns: string[]; to_columns: string[]; on_delete: string }>(
    `SELECT t.relname AS table_name, f.relname AS foreign_table, c.confdeltype AS on_delete,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS from_columns,
            ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, n)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS to_columns
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class f ON f.oid = c.confrelid
       JOIN pg_namespace ns ON ns.oid = t.relnamespace
      WHERE c.contype = 'f' AND ns.nspname = current_schema()`,
  );
  for (const fk of fks) out[fk.table_name]?.foreignKeys.push(foreignKeyText(fk.from_columns, fk.foreign_table, fk.to_columns, ON_DELETE[fk.on_delete]));
  for (const t of Object.values(out)) {
    t.indexes.sort();
    t.foreignKeys.sort();
  }
  return out;
}

/** Each table on its own, so a failure names every table that differs and shows only its difference. */
function expectSame(migrated: Shape, declarations: Shape): void {
  expect.soft(Object.keys(migrated).sort()).toEqual(Object.keys(declarations).sort());
  expect(Object.keys(declarations).length).toBeGreaterThan(20);
  for (const name of Object.keys(declarations)) expect.soft({ [name]: migrated[name] }).toEqual({ [name]: declarations[name] });
}

const namesOf = (shape: Shape) => new Set(Object.values(shape).flatMap((t) => t.indexes.filter((i) => !i.startsWith('unique ')).map((i) => i.split(' ')[0])));

describe('the migrated SQLite database', () => {
  it('is what src/db/schema declares: columns, affinities, nullability, primary keys, indexes, foreign keys', () => {
    const dialect = new SQLiteSyncDialect();
    const declarations = declared(Object.values(sqliteSchema).filter((v) => v instanceof SQLiteTable), sqliteConfig, affinity, (w) => dialect.sqlToQuery(w).sql);
    const db = new BetterSqlite3(':memory:');
    try {
      db.pragma('foreign_keys = ON');
      applyMigrations(db);
      expectSame(sqliteMigrated(db, namesOf(declarations)), declarations);
    } finally {
      db.close();
    }
  });
});

const skip = pgUnavailableReason();
if (skip) console.warn(skip);

describe.skipIf(skip !== undefined)('the migrated PostgreSQL database', () => {
  let db: TestDatabase;
  let pg: Pg;
  beforeAll(async () => {
    db = await createTestDatabase();
    pg = openPostgres(db.url, { max: 2 });
    await applyPgMigrations(pg);
  }, 60_000);
  afterAll(async () => {
    await pg?.end({ timeout: 5 });
    await db?.drop();
  });

  it('is what src/db/schema-pg declares: columns, data types, nullability, primary keys, indexes, foreign keys', async () => {
    const dialect = new PgDialect();
    const declarations = declared(Object.values(pgSchema).filter((v) => v instanceof PgTable), pgConfig, pgDataType, (w) => dialect.sqlToQuery(w).sql);
    expectSame(await pgMigrated(pg, namesOf(declarations)), declarations);
  });
});
