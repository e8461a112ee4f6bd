import type BetterSqlite3 from 'better-sqlite3';
import { DomainError } from '../errors';

/**
 * The store port's one way to the database (DESIGN.md "Storage"): each context writes its store
 * once against `Sql`, and both engines run it. Stores share their SQL text between engines where
 * it is portable, and pick by `dialect` where it is not. The rules that keep SQL portable:
 * - parameters are positional `?` (an array) or named `@name` (an object), never mixed;
 * - camelCase result names are quoted (`AS "grantId"`): PostgreSQL folds unquoted names to lower case;
 * - integers are 64-bit columns read back as JS numbers; booleans are integers 0/1 on both engines;
 * - no SQLite-only forms: `ON CONFLICT … DO NOTHING` rather than `INSERT OR IGNORE`, `CASE` or
 *   `sql.greatest()` rather than the two-argument `max()`, no `rowid`; a `LIMIT`ed delete selects
 *   primary keys;
 * - a read whose answer decides a write in the same transaction either becomes a conditional write
 *   (`UPDATE … WHERE state = expected`, `INSERT … ON CONFLICT`, checking the row count) or locks
 *   what it read (`forUpdate(dialect)`): on PostgreSQL several processes write at once, and the
 *   single SQLite writer's guarantees must be stated, not assumed.
 */
export type Dialect = 'sqlite' | 'postgres';

export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface Sql {
  readonly dialect: Dialect;
  /** The first row, or undefined. */
  get<T>(text: string, params?: Params): Promise<T | undefined>;
  all<T>(text: string, params?: Params): Promise<T[]>;
  /** Runs a statement; the number of rows it inserted, updated or deleted. */
  run(text: string, params?: Params): Promise<number>;
}

/**
 * A write refused by a unique constraint (primary key or unique index), on either engine: what
 * a check-then-insert meets when another process inserted the same key in between. Services
 * turn it into their own conflict (`onUnique`); anything else goes through unchanged.
 */
export class UniqueViolation extends Error {
  constructor(cause: unknown) {
    super('unique constraint violated', { cause });
    this.name = 'UniqueViolation';
  }
}

/**
 * A text parameter holding NUL (U+0000): PostgreSQL's text cannot hold it (22021, "invalid byte
 * sequence for encoding UTF8: 0x00") while SQLite would store it. Both engines refuse it before
 * running the statement, as the same 400 `invalid_request` in every API family: the last line
 * behind the field-naming checks where input is read (docs/decisions.md "Input bounds").
 */
export class NulInText extends DomainError {
  constructor() {
    super('invalid', 'invalid_request', 'a text value holds a NUL character (\\u0000), which text values may not contain');
    this.name = 'NulInText';
  }
}

/** Throws NulInText when a string parameter holds NUL. */
export function refuseNulParams(params: readonly unknown[]): void {
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (typeof v === 'string' && v.includes('\0')) throw new NulInText();
    // SQLite's named parameters (one object), PostgreSQL's array parameters (`= ANY(?)`).
    if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array) && !(v instanceof Date)) {
      for (const x of Array.isArray(v) ? v : Object.values(v)) if (typeof x === 'string' && x.includes('\0')) throw new NulInText();
    }
  }
}

/** `promise.catch(onUnique(() => conflict))`: a unique violation becomes `conflict()`. */
export function onUnique(conflict: () => Error): (e: unknown) => never {
  return (e) => {
    throw e instanceof UniqueViolation ? conflict() : e;
  };
}

/**
 * `UPDATE <table> SET … WHERE <where>` for a partial change: the fields given (undefined ones
 * left out, booleans as 0/1) in the order of `columns`, so each set of fields has one text,
 * built once. The change's values come first in `values`, then the caller's WHERE parameters.
 * Undefined when the change sets nothing.
 */
export function updateStatement<F extends string>(table: string, columns: Readonly<Record<F, string>>, where: string) {
  const fieldOrder = Object.keys(columns) as F[];
  const texts = new Map<string, string>();
  return (change: Partial<Record<F, unknown>>): { text: string; values: unknown[] } | undefined => {
    const fields = fieldOrder.filter((f) => change[f] !== undefined);
    if (fields.length === 0) return undefined;
    const key = fields.join(' ');
    let text = texts.get(key);
    if (text === undefined) {
      text = `UPDATE ${table} SET ${fields.map((f) => `${columns[f]} = ?`).join(', ')} WHERE ${where}`;
      texts.set(key, text);
    }
    return { text, values: fields.map((f) => (typeof change[f] === 'boolean' ? (change[f] ? 1 : 0) : change[f])) };
  };
}

/** `GREATEST(a, b)` in both dialects (SQLite's scalar `max`). */
export function greatest(dialect: Dialect, a: string, b: string): string {
  return dialect === 'postgres' ? `GREATEST(${a}, ${b})` : `max(${a}, ${b})`;
}

/** `LEAST(a, b)` in both dialects (SQLite's scalar `min`). */
export function least(dialect: Dialect, a: string, b: string): string {
  return dialect === 'postgres' ? `LEAST(${a}, ${b})` : `min(${a}, ${b})`;
}

/** ` FOR UPDATE` on PostgreSQL (row locks for a read that decides a write); nothing on SQLite, whose writer is alone. */
export function forUpdate(dialect: Dialect): string {
  return dialect === 'postgres' ? ' FOR UPDATE' : '';
}

/**
 * ` FOR KEY SHARE [OF <table>]` on PostgreSQL: what a foreign key check takes on the row it
 * references. It lets others update the row's other columns but not delete it (or change its key)
 * until the transaction ends: a writer naming a row in rows of its own (a send naming an
 * installation) keeps a concurrent erasure of it waiting, or, behind one, finds it gone.
 * Nothing on SQLite, whose writer is alone.
 */
export function forKeyShare(dialect: Dialect, of?: string): string {
  return dialect === 'postgres' ? ` FOR KEY SHARE${of === undefined ? '' : ` OF ${of}`}` : '';
}

/**
 * A multi-row statement's text per row count, made once per process: each count is one text,
 * prepared once and kept (the engines cache prepared statements by text).
 */
export function textsByRows(make: (rows: number) => string): (rows: number) => string {
  const texts = new Map<number, string>();
  return (rows) => {
    let t = texts.get(rows);
    if (t === undefined) texts.set(rows, (t = make(rows)));
    return t;
  };
}

/** Rows per multi-row INSERT of `insertMany`: well under both engines' bound-parameter limits (SQLite 32,766). */
export const INSERT_ROWS = 500;

/** Inserts `rows` in slices of INSERT_ROWS, one multi-row statement each: `head VALUES (…), (…)tail`. */
export async function insertMany<R>(db: Sql, rows: readonly R[], columns: number, head: string, values: (r: R) => unknown[], tail = ''): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) {
    const slice = rows.slice(i, i + INSERT_ROWS);
    const params: unknown[] = [];
    for (const r of slice) params.push(...values(r));
    await db.run(`${head} VALUES ${valuesList(slice.length, columns)}${tail}`, params);
  }
}

/** `?, ?, …` for an IN list of `n` values. */
export const inList = (n: number): string => new Array<string>(n).fill('?').join(', ');

/** Placeholders for `rows` rows of `columns` positional values: `(?, ?), (?, ?)`. */
export function valuesList(rows: number, columns: number): string {
  const one = `(${new Array<string>(columns).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(one).join(', ');
}

/**
 * better-sqlite3 behind the port. Statements are prepared once per text and kept; each call runs
 * synchronously and hands back a settled promise (a throw becomes a rejection).
 */
export function createSqliteSql(conn: BetterSqlite3.Database): Sql {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepared = (text: string): BetterSqlite3.Statement => {
    let s = statements.get(text);
    if (s === undefined) {
      s = conn.prepare(text);
      statements.set(text, s);
    }
    return s;
  };
  const bind = (p: Params | undefined): unknown[] => {
    const values = p === undefined ? [] : Array.isArray(p) ? p : [p];
    refuseNulParams(values);
    return values;
  };
  const failed = (e: unknown): Promise<never> => {
    const code = (e as { code?: string }).code;
    return Promise.reject(code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? new UniqueViolation(e) : e);
  };
  // Plain functions returning settled promises rather than async ones: an async function whose
  // caller awaits it costs extra microtask turns, on every statement of every request.
  return {
    dialect: 'sqlite',
    get<T>(text: string, params?: Params) {
      try {
        return Promise.resolve(prepared(text).get(...bind(params)) as T | undefined);
      } catch (e) {
        return failed(e);
      }
    },
    all<T>(text: string, params?: Params) {
      try {
        return Promise.resolve(prepared(text).all(...bind(params)) as T[]);
      } catch (e) {
        return failed(e);
      }
    },
    run(text: string, params?: Params) {
      try {
        return Promise.resolve(prepared(text).run(...bind(params)).changes);
      } catch (e) {
        return failed(e);
      }
    },
  };
}

