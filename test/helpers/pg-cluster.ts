import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { applyPgMigrations, loadPgMigrations } from '../../src/platform/store/pg-migrations';
import { openPostgres } from '../../src/platform/store/postgres';

/**
 * A throwaway PostgreSQL cluster for tests (issue 9: CI must not depend on a server already
 * running): initdb into a temporary directory, postgres on a free loopback port with every
 * durability setting off, gone with `stop()`. Root may not run initdb or postgres: as root the
 * cluster belongs to the `postgres` OS user (spawned with its uid), otherwise to the caller.
 */

export interface PgCluster {
  /** Superuser URL of the `postgres` database (password included). */
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
}

/** The bin directory of an installed PostgreSQL (ENGAGE_PG_BIN, else the newest Debian one), or undefined. */
export function pgBinDir(): string | undefined {
  const fromEnv = process.env.ENGAGE_PG_BIN;
  if (fromEnv) return existsSync(path.join(fromEnv, 'initdb')) ? fromEnv : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function pgUnavailableReason(): string | undefined {
  if (process.env.ENGAGE_TEST_DATABASE_URL) return undefined;
  return pgBinDir() ? undefined : 'no PostgreSQL binaries (/usr/lib/postgresql/*/bin/initdb, or ENGAGE_PG_BIN): PostgreSQL tests skipped';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function owner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** One connection for `fn`, closed afterwards. */
async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>, connectMs = 10_000): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectMs });
  client.on('error', () => {}); // a lost connection fails the query; it must not end the process
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function waitReady(url: string, child: ChildProcess, log: string, deadline: number): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}): ${readFileSync(log, 'utf8').slice(-2000)}`);
    try {
      await withClient(url, (c) => c.query('SELECT 1'), 2000);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`postgres did not start: ${(e as Error).message}; ${readFileSync(log, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Where a test cluster lives: /dev/shm (memory) when it has room, else the temporary directory.
 * Nothing there needs to survive, and on a disk each new database (a file per table and index)
 * cost the kernel three times the CPU time: token-route.test.ts on PostgreSQL measured
 * 22-24 s of system time on disk, 5-8 s in memory.
 */
function clusterBase(): string {
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize >= 2 * 1024 ** 3) return '/dev/shm';
  } catch {
    // no /dev/shm
  }
  return tmpdir();
}

/** initdb + postgres on a free loopback port. */
/**
 * `durable`: PostgreSQL's own defaults for durability (fsync, synchronous commit, full page
 * writes), as a production server runs; for benchmarks. Tests go without them.
 */
export async function startPgCluster(opts: { durable?: boolean } = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error(pgUnavailableReason());
  const dir = mkdtempSync(path.join(opts.durable ? tmpdir() : clusterBase(), 'engage-pg-'));
  const data = path.join(dir, 'data');
  const as = owner();
  if (as) chownSync(dir, as.uid, as.gid);
  const password = randomBytes(12).toString('hex');
  const pwfile = path.join(dir, 'pw');
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (as) chownSync(pwfile, as.uid, as.gid);
  const spawnOpts = { cwd: dir, ...(as ?? {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' } };
  // Password authentication on TCP (what production URLs carry), trust on the socket.
  execFileSync(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'],
    { ...spawnOpts, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  rmSync(pwfile);
  const log = path.join(dir, 'postgres.log');
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const fd = openSync(log, 'a');
    if (as) chownSync(log, as.uid, as.gid);
    const args = [
      '-D', data, '-p', String(port), '-k', dir,
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=300', '-c', 'max_wal_size=1GB', '-c', 'log_min_messages=warning', '-c', 'logging_collector=off',
      ...(opts.durable
        ? ['-c', 'shared_buffers=256MB', '-c', 'checkpoint_timeout=15min']
        : // Test speed: nothing here needs to survive a crash.
          ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'shared_buffers=64MB', '-c', 'checkpoint_timeout=30min', '-c', 'autovacuum=off']),
    ];
    // A watchdog shell between us and postgres: it stops postgres when its stdin closes, i.e.
    // on stop() or when this process dies in any way (vitest kills its workers without 'exit'),
    // and removes the cluster's directory.
    const child = spawn(
      '/bin/sh',
      ['-c', '"$0" "$@" & pid=$!; read _ || true; kill -QUIT $pid 2>/dev/null; wait $pid; rm -rf "$ENGAGE_PG_DIR"', path.join(bin, 'postgres'), ...args],
      { ...spawnOpts, env: { ...spawnOpts.env, ENGAGE_PG_DIR: dir }, stdio: ['pipe', fd, fd] },
    );
    const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    try {
      await waitReady(url, child, log, Date.now() + 30_000);
    } catch (e) {
      lastError = e;
      child.stdin?.end();
      continue;
    }
    return {
      url,
      port,
      dir,
      async stop() {
        if (child.exitCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.stdin?.end(); // immediate shutdown (SIGQUIT): the data is thrown away anyway
          await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}

let local: Promise<PgCluster> | undefined;
let localUsers = 0;

/**
 * The cluster's superuser URL: the one started by the vitest globalSetup (pg-global-setup.ts,
 * ENGAGE_TEST_DATABASE_URL), else one started for this test process and stopped at its exit.
 */
export async function testClusterUrl(): Promise<string> {
  const fromEnv = process.env.ENGAGE_TEST_DATABASE_URL;
  if (fromEnv) return fromEnv;
  local ??= startPgCluster();
  return (await local).url;
}

export interface TestDatabase {
  /** URL of a new, empty database of its own. */
  url: string;
  drop(): Promise<void>;
}

/**
 * `TEMPLATE name …` of a database on the cluster with every PostgreSQL migration applied, made once per
 * cluster (per set of migrations: the name carries their hash), under an advisory lock so the
 * test workers wait for the first one; built under another name and renamed when complete, so a
 * half-made one is never cloned. Per process, the promise is kept.
 */
let migratedTemplate: Promise<string> | undefined;
function migratedTemplateClause(admin: string): Promise<string> {
  migratedTemplate ??= (async () => {
    const migrations = loadPgMigrations();
    const hash = createHash('sha256');
    for (const m of migrations) hash.update(m.tag).update('\0').update(m.sql).update('\0');
    const name = `engage_template_${hash.digest('hex').slice(0, 16)}`;
    return withClient(admin, async (c) => {
      // FILE_COPY (PostgreSQL 15 and later): a copy of the template's files, no WAL of them
      // (WAL_LOG's would grow the cluster's memory-backed directory, clusterBase(), at every clone).
      const { rows: [v] } = await c.query<{ n: string }>('SHOW server_version_num');
      const clause = ` TEMPLATE ${name}${Number(v?.n) >= 150000 ? ' STRATEGY FILE_COPY' : ''}`;
      await c.query('SELECT pg_advisory_lock(1701733991, 2)');
      try {
        const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (rowCount) return clause;
        const building = `${name}_building`;
        await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${building}`);
        const u = new URL(admin);
        u.pathname = `/${building}`;
        const pool = openPostgres(u.toString(), { max: 1 });
        try {
          await applyPgMigrations(pool, migrations);
        } finally {
          await pool.end();
        }
        // RENAME waits (up to 5 s) for the pool's backend to be gone.
        await c.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        return clause;
      } finally {
        await c.query('SELECT pg_advisory_unlock(1701733991, 2)');
      }
    });
  })();
  migratedTemplate.catch(() => (migratedTemplate = undefined));
  return migratedTemplate;
}

/**
 * A fresh database (random name) on the test cluster, for one test file or harness. `migrated`:
 * with every PostgreSQL migration already applied, a copy of a template database
 * (CREATE DATABASE … TEMPLATE: tens of milliseconds, where applying the migrations to each new
 * database took hundreds). Its schema and ledger are what applyPgMigrations makes of an empty
 * database (the same function made the template); `engage init`, `migrate` and the migration
 * tests themselves start from an empty one (the default).
 */
export async function createTestDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const shared = process.env.ENGAGE_TEST_DATABASE_URL !== undefined;
  if (!shared) localUsers++;
  const admin = await testClusterUrl();
  const name = `engage_test_${randomBytes(6).toString('hex')}`;
  const template = opts.migrated ? await migratedTemplateClause(admin) : '';
  await withClient(admin, (c) => c.query(`CREATE DATABASE ${name}${template}`));
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      await withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      // A cluster of this process's own goes with its last database.
      if (!shared && --localUsers === 0 && local) {
        const c = local;
        local = undefined;
        await (await c).stop();
      }
    },
  };
}
