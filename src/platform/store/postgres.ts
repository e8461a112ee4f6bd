import postgres from 'postgres';
import { parseDatabaseUrl } from './database-url';
import type { Params, Sql } from './sql';

export { DatabaseUrlError, parseDatabaseUrl, redactUrl } from './database-url';

/**
 * PostgreSQL through postgres.js (notes/dependencies.md): one pool per process, prepared
 * statements, LISTEN with automatic re-listen after a reconnect.
 */
export type Pg = postgres.Sql;

export interface PostgresOptions {
  /** Pool size (postgres.js `max`); default 10. */
  max?: number;
  /** Seconds before an idle connection is closed; default 60. */
  idleTimeout?: number;
  /** Seconds to wait for a connection; default 10. */
  connectTimeout?: number;
  /** `application_name`, seen in pg_stat_activity. */
  applicationName?: string;
  /** Server notices (they are dropped by default rather than printed by the driver). */
  onNotice?: (message: string) => void;
}

/**
 * int8 (counts, epoch milliseconds, every integer column) and numeric (sums) come back as JS
 * numbers like SQLite's: the values stored here stay far below 2^53.
 */
const TYPES = {
  int8: { to: 20, from: [20], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
  numeric: { to: 1700, from: [1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
};

/**
 * Opens a pool. The password is handed to the driver as a function, so it is not kept in the
 * pool's options (where an inspected object or a logged error could show it), and the URL
 * given to the driver has none.
 */
export function openPostgres(url: string, opts: PostgresOptions = {}): Pg {
  const u = parseDatabaseUrl(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  const listeners = new Set<(message: string) => void>();
  if (opts.onNotice) listeners.add(opts.onNotice);
  const pg = postgres(u.toString(), {
    max: opts.max ?? 10,
    idle_timeout: opts.idleTimeout ?? 60,
    connect_timeout: opts.connectTimeout ?? 10,
    ...(password ? { pass: () => password } : {}),
    prepare: true,
    types: TYPES,
    // Not printed by the driver: handed to whoever listens (the catalogue triggers raise one).
    onnotice: (n) => {
      for (const fn of listeners) fn(String(n.message));
    },
    connection: { application_name: opts.applicationName ?? 'engage' },
  }) as unknown as Pg;
  noticeListeners.set(pg, listeners);
  return pg;
}

const noticeListeners = new WeakMap<Pg, Set<(message: string) => void>>();

/** Calls `fn` with every server notice the pool receives; returns the way to stop. */
export function onPgNotice(pg: Pg, fn: (message: string) => void): () => void {
  const set = noticeListeners.get(pg);
  if (!set) throw new Error('onPgNotice needs a pool opened by openPostgres');
  set.add(fn);
  return () => set.delete(fn);
}

/** Scrubs a password out of an error's message and stack (defence in depth: see the test). */
export function scrubError(e: unknown, password: string | undefined): unknown {
  if (!password || !(e instanceof Error)) return e;
  const enc = encodeURIComponent(password);
  const clean = (s: string) => s.split(password).join('***').split(enc).join('***');
  if (e.message.includes(password) || e.message.includes(enc)) e.message = clean(e.message);
  if (e.stack && (e.stack.includes(password) || e.stack.includes(enc))) e.stack = clean(e.stack);
  return e;
}

interface Translated {
  text: string;
  /** For named parameters: the name of each $n, in order; undefined for positional. */
  names?: string[];
  /** For positional parameters: how many `?`. */
  count: number;
}

/**
 * Rewrites the portable placeholders (sql.ts) to PostgreSQL's `$n`: each `?` in order, each
 * distinct `@name` once (a name used twice is the same `$n`). Single-quoted literals,
 * double-quoted identifiers, dollar-quoted bodies and `--` comments are left as they are.
 * `?` is also a jsonb operator on PostgreSQL: portable SQL does not use it.
 */
export function translatePlaceholders(sql: string): Translated {
  let out = '';
  let positional = 0;
  const names: string[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = skipQuoted(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      const end = nl === -1 ? n : nl;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))![0];
      const close = sql.indexOf(tag, i + tag.length);
      const end = close === -1 ? n : close + tag.length;
      out += sql.slice(i, end);
      i = end;
    } else if (c === '?') {
      out += `$${++positional}`;
      i++;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(sql[j])) j++;
      const name = sql.slice(i + 1, j);
      let k = names.indexOf(name);
      if (k === -1) k = names.push(name) - 1;
      out += `$${k + 1}`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  if (positional > 0 && names.length > 0) throw new Error('SQL mixes ? and @name placeholders');
  return names.length > 0 ? { text: out, names, count: names.length } : { text: out, count: positional };
}

function skipQuoted(s: string, start: number, q: string): number {
  let i = start + 1;
  for (;;) {
    const j = s.indexOf(q, i);
    if (j === -1) return s.length;
    if (s[j + 1] === q) {
      i = j + 2; // doubled quote: an escaped one
      continue;
    }
    return j + 1;
  }
}

/** Anything that runs `unsafe`: the pool, a transaction, a savepoint, a reserved connection. */
export type PgRunner = Pick<postgres.Sql, 'unsafe'>;

type Row = Record<string, unknown>;

/**
 * postgres.js behind the port. Statement texts are translated once and kept; every statement
 * is prepared on each connection that runs it (postgres.js caches it per connection).
 * `runner` may be a function so a transaction can route its statements to the innermost
 * savepoint (postgres-store.ts).
 */
export function createPostgresSql(runner: PgRunner | (() => PgRunner), cache = new Map<string, Translated>()): Sql {
  const current = typeof runner === 'function' && !('unsafe' in runner) ? runner : () => runner as PgRunner;
  const translated = (text: string): Translated => {
    let t = cache.get(text);
    if (t === undefined) {
      t = translatePlaceholders(text);
      cache.set(text, t);
    }
    return t;
  };
  const args = (t: Translated, p: Params | undefined): unknown[] => {
    if (t.names) {
      if (p === undefined || Array.isArray(p)) throw new Error('named SQL parameters need an object');
      const o = p as Readonly<Record<string, unknown>>;
      return t.names.map((name) => {
        if (!(name in o)) throw new Error(`missing SQL parameter @${name}`);
        const v = o[name];
        return v === undefined ? null : v;
      });
    }
    const a = p === undefined ? [] : Array.isArray(p) ? p : [p];
    if (a.length !== t.count) throw new Error(`SQL expects ${t.count} parameter(s), got ${a.length}`);
    return a.map((v) => (v === undefined ? null : v));
  };
  const exec = (text: string, params: Params | undefined) => {
    const t = translated(text);
    return current().unsafe<Row[]>(t.text, args(t, params) as postgres.ParameterOrJSON<never>[], { prepare: true });
  };
  return {
    dialect: 'postgres',
    async get<T>(text: string, params?: Params) {
      const rows = await exec(text, params);
      return rows[0] as T | undefined;
    },
    async all<T>(text: string, params?: Params) {
      return (await exec(text, params)) as unknown as T[];
    },
    async run(text: string, params?: Params) {
      const result = await exec(text, params);
      return result.count;
    },
  };
}
