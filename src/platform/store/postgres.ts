import { createHash } from 'node:crypto';
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import { parseDatabaseUrl } from './database-url';
import { refuseNulParams, UniqueViolation, type Params, type Sql } from './sql';

export { DatabaseUrlError, parseDatabaseUrl, redactUrl } from './database-url';

/**
 * PostgreSQL through node-postgres (`pg`, docs/decisions.md "PostgreSQL engine"): one pool per
 * process, named (prepared) statements, int8 and numeric read back as JS numbers. Every pool and
 * every client it opens has an 'error' listener: node-postgres emits 'error' on a client whose
 * backend goes away (database restart, pg_terminate_backend, idle_in_transaction_session_timeout),
 * and an unhandled 'error' event would end the process. The requests on that connection fail;
 * the pool drops the connection and opens another when asked.
 */
export interface PostgresOptions {
  /** Pool size; default 10. */
  max?: number;
  /** Seconds before an idle connection is closed; default 60. */
  idleTimeout?: number;
  /** Seconds to wait for a connection (opening one, or a free one from a full pool); default 10. */
  connectTimeout?: number;
  /** `application_name`, seen in pg_stat_activity. */
  applicationName?: string;
  /** Server notices (dropped by default; the catalogue triggers raise one). */
  onNotice?: (message: string) => void;
  /** Errors of connections nobody was waiting on (an idle connection lost); dropped by default. */
  onError?: (e: Error) => void;
}

/**
 * int8 (counts, epoch milliseconds, every integer column) and numeric (sums) come back as JS
 * numbers like SQLite's: the values stored here stay far below 2^53. Per pool, not global.
 */
const INT8 = 20;
const NUMERIC = 1700;
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string | null) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

/** The password of each pool and of each of its clients, only to scrub it out of errors. */
const secrets = new WeakMap<object, string>();
const noticeListeners = new WeakMap<object, Set<(message: string) => void>>();
/** Clients whose connection emitted an error: they are not queryable any more. */
const broken = new WeakSet<object>();

/**
 * A node-postgres pool whose `end` also takes a timeout (seconds), after which it stops waiting
 * for checked-out clients (they are closed when released).
 */
export class PgPool extends pg.Pool {
  override end(): Promise<void>;
  override end(callback: () => void): void;
  override end(options: { timeout?: number }): Promise<void>;
  override end(arg?: (() => void) | { timeout?: number }): Promise<void> | void {
    if (typeof arg === 'function') return super.end(arg);
    const ended = super.end();
    if (arg?.timeout === undefined) return ended;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, arg.timeout! * 1000)));
    return Promise.race([ended, timeout]).finally(() => clearTimeout(timer));
  }
}

export type Pg = PgPool;

/**
 * Opens a pool (connections are opened on demand). The password is handed to the driver as a
 * function, so it is not kept in the pool's options (where an inspected object or a logged
 * error could show it), and the URL the driver parses has none.
 */
export function openPostgres(url: string, opts: PostgresOptions = {}): Pg {
  const u = parseDatabaseUrl(url);
  // In the user information, else a `password` parameter (libpq's keyword): taken out either way.
  const password = decodeURIComponent(u.password) || u.searchParams.get('password') || '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.delete(k);
  const parsed = parseIntoClientConfig(u.toString());
  delete parsed.password;
  const pool = new PgPool({
    ...parsed,
    ...(password ? { password: () => password } : {}),
    max: opts.max ?? 10,
    idleTimeoutMillis: (opts.idleTimeout ?? 60) * 1000,
    connectionTimeoutMillis: (opts.connectTimeout ?? 10) * 1000,
    application_name: opts.applicationName ?? parsed.application_name ?? 'engage',
    // A connection silently cut (a failover behind a dead router) is noticed by the kernel.
    keepAlive: true,
    types: TYPES,
  });
  const listeners = new Set<(message: string) => void>();
  if (opts.onNotice) listeners.add(opts.onNotice);
  noticeListeners.set(pool, listeners);
  if (password) secrets.set(pool, password);
  const onError = opts.onError ?? (() => {});
  // An idle client that lost its connection: the pool has already dropped it.
  pool.on('error', (e) => onError(scrubError(e, password) as Error));
  pool.on('connect', (client) => guardClient(pool, client));
  return pool;
}

/**
 * A client outside the pool, with the pool's settings (the catalogue's LISTEN connection); not
 * connected yet. Its errors mark it broken and go to `onError`; its 'end' is the caller's business.
 */
export function newPgClient(pool: Pg, onError: (e: Error) => void = () => {}): pg.Client {
  const client = new pg.Client(pool.options);
  guardClient(pool, client, onError);
  return client;
}

function guardClient(pool: Pg, client: pg.ClientBase, onError: (e: Error) => void = () => {}): void {
  const password = secrets.get(pool);
  if (password) secrets.set(client, password);
  client.on('error', (e) => {
    broken.add(client);
    onError(scrubError(e, password) as Error);
  });
  const listeners = noticeListeners.get(pool);
  client.on('notice', (n) => {
    if (listeners) for (const fn of listeners) fn(String(n.message));
  });
}

/** Calls `fn` with every server notice the pool's connections receive; returns the way to stop. */
export function onPgNotice(pool: Pg, fn: (message: string) => void): () => void {
  const set = noticeListeners.get(pool);
  if (!set) throw new Error('onPgNotice needs a pool opened by openPostgres');
  set.add(fn);
  return () => set.delete(fn);
}

/** SQLSTATEs that mean the session is gone: connection exceptions, the server shutting it down. */
const LOST = /^(08|57P0[1-3]|25P03)/;

/**
 * True when `e` (or `client`'s state) says the connection is gone rather than a statement
 * failed: the client must be destroyed (`release(e)`), not rolled back and reused.
 */
export function isConnectionLost(e: unknown, client?: object): boolean {
  if (client && (broken.has(client) || isNotQueryable(client))) return true;
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && LOST.test(code)) return true;
    if (c instanceof pg.DatabaseError) continue;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNRESET, EPIPE, ETIMEDOUT…
    if (/^(Connection terminated|Client has encountered a connection error|Client was closed)/.test(c.message)) return true;
  }
  return false;
}

/** node-postgres's own test (pg-pool reads the same fields to drop a dead client). */
function isNotQueryable(client: object): boolean {
  const c = client as { _queryable?: boolean; _ending?: boolean };
  return c._queryable === false || c._ending === true;
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

/** `scrubError` with the password of the pool (or pool client) `runner`, if any. */
export function scrubFor(runner: object, e: unknown): unknown {
  return scrubError(e, secrets.get(runner));
}

interface Translated {
  text: string;
  /** The prepared statement's name: the same on every connection for the same text. */
  name: string;
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
  const name = `engage_${createHash('sha1').update(out).digest('base64url').slice(0, 20)}`;
  return names.length > 0 ? { text: out, name, names, count: names.length } : { text: out, name, count: positional };
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

/**
 * What runs a statement: the pool (each statement on whichever connection is free), a client
 * checked out for a transaction, or the store's own runner (postgres-store.ts).
 */
export interface PgRunner {
  query<R extends pg.QueryResultRow = Row>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

type Row = Record<string, unknown>;

/**
 * node-postgres behind the port. Statement texts are translated once and kept; every statement
 * is a named (prepared) one, parsed once on each connection that runs it (node-postgres keeps
 * the names per connection), its name a hash of its text. `runner` may be a function so a
 * caller can route statements per call.
 */
export function createPostgresSql(runner: PgRunner | (() => PgRunner), cache = new Map<string, Translated>()): Sql {
  const current = typeof runner === 'function' ? runner : () => runner;
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
  const exec = async (text: string, params: Params | undefined): Promise<pg.QueryResult<Row>> => {
    const t = translated(text);
    const r = current();
    const values = args(t, params);
    refuseNulParams(values);
    try {
      return await r.query<Row>({ name: t.name, text: t.text, values });
    } catch (e) {
      // unique_violation: a concurrent insert of the same key (sql.ts).
      throw (e as { code?: string }).code === '23505' ? new UniqueViolation(scrubFor(r, e)) : scrubFor(r, e);
    }
  };
  return {
    dialect: 'postgres',
    async get<T>(text: string, params?: Params) {
      return (await exec(text, params)).rows[0] as T | undefined;
    },
    async all<T>(text: string, params?: Params) {
      return (await exec(text, params)).rows as T[];
    },
    async run(text: string, params?: Params) {
      return (await exec(text, params)).rowCount ?? 0;
    },
  };
}
