/**
 * Drives the built single executable as a user would: a copy of dist/engage alone in a fresh
 * temporary directory, every CLI command with `--data-dir` inside that directory, and
 * `engage serve` on a loopback port, stopped with SIGTERM.
 *
 * The sandbox picks its port up front and exports ENGAGE_PUBLIC_URL to every command, so the
 * issuers the CLI prints before the server starts are the ones the server answers for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants as fsConstants, existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './pg-cluster';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** dist/engage (or ENGAGE_BIN); throws with the fix when it has not been built. */
export function binaryPath(): string {
  const bin = process.env.ENGAGE_BIN ?? path.join(repoRoot, 'dist', 'engage');
  if (!existsSync(bin)) throw new Error(`${bin} does not exist: run \`node build.mjs\` first (npm test does)`);
  return bin;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Leave out the sandbox's --data-dir (to test the default data directory). */
  noDataDir?: boolean;
}

export interface ServeOptions {
  host?: string;
  /** The sandbox's port by default; 0 lets the server pick (its public URL then follows). */
  port?: number;
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

export interface RunningServer {
  process: ChildProcess;
  /** Base URL the server reported and answers on, e.g. http://127.0.0.1:43817 */
  url: string;
  /** Everything the server wrote so far (stdout and stderr interleaved by line). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; `forced` tells whether SIGKILL was needed. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; forced: boolean }>;
}

export interface Sandbox {
  /** The temporary directory, holding only the copied executable at first. */
  dir: string;
  bin: string;
  dataDir: string;
  port: number;
  publicUrl: string;
  env: NodeJS.ProcessEnv;
  /** Runs `engage <args> --data-dir <dataDir>` in `dir`; never throws on a non-zero exit. */
  run(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** Like run, but requires exit 0 and returns stdout. */
  cli(args: string[], opts?: RunOptions): Promise<string>;
  /** `cli([...args, '--json'])` parsed; stdout must be exactly one JSON document. */
  cliJson<T = unknown>(args: string[], opts?: RunOptions): Promise<T>;
  serve(opts?: ServeOptions): Promise<RunningServer>;
  /** The sandbox's PostgreSQL database URL when the suite runs on that engine. */
  database?: string;
  /** Stops servers still running and removes the directory (and its database). */
  cleanup(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it, so parallel tests do not collide). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Environment for the executable: ours minus any ENGAGE_* that would change its behaviour. */
function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('ENGAGE_') && k !== 'NODE_OPTIONS') env[k] = v;
  return { ...env, ENGAGE_LOG_FORMAT: 'json', ...extra };
}

/**
 * A sandbox whose data directory (and, on PostgreSQL, database) `engage init` has made, as a
 * user does before any other command (issue 23 point 2); `init: false` leaves it empty.
 */
export async function createSandbox(opts: { prefix?: string; init?: boolean } = {}): Promise<Sandbox> {
  const source = binaryPath();
  const dir = await mkdtemp(path.join(tmpdir(), opts.prefix ?? 'engage-e2e-'));
  const bin = path.join(dir, 'engage');
  // A reflink where the filesystem can, a plain copy elsewhere: the binary is ~85 MiB.
  await copyFile(source, bin, fsConstants.COPYFILE_FICLONE);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  // ENGAGE_TEST_ENGINE=postgres: every command of the sandbox on a fresh database of its own.
  const database = process.env.ENGAGE_TEST_ENGINE === 'postgres' ? await createTestDatabase() : undefined;
  const env = cleanEnv({ ENGAGE_PUBLIC_URL: publicUrl, ...(database ? { ENGAGE_DATABASE_URL: database.url } : {}) });
  const servers = new Set<RunningServer>();

  const run = (args: string[], o: RunOptions = {}): Promise<RunResult> =>
    new Promise((resolve, reject) => {
      const argv = o.noDataDir ? args : [...args, '--data-dir', dataDir];
      const child = spawn(bin, argv, { cwd: dir, env: { ...env, ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 30_000);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
      child.stdin.end(o.stdin ?? '');
    });

  const cli = async (args: string[], o?: RunOptions): Promise<string> => {
    const r = await run(args, o);
    if (r.code !== 0) {
      throw new Error(`engage ${args.join(' ')} exited ${r.code ?? r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    }
    return r.stdout;
  };

  const cliJson = async <T>(args: string[], o?: RunOptions): Promise<T> => {
    const out = await cli([...args, '--json'], o);
    try {
      return JSON.parse(out) as T;
    } catch {
      throw new Error(`engage ${args.join(' ')} --json did not print one JSON document:\n${out}`);
    }
  };

  const serve = async (o: ServeOptions = {}): Promise<RunningServer> => {
    const host = o.host ?? '127.0.0.1';
    const listenPort = o.port ?? port;
    const serveEnv = { ...env, ...o.env };
    if (o.port === 0) delete serveEnv.ENGAGE_PUBLIC_URL; // the public URL must follow the picked port
    const child = spawn(bin, ['serve', '--host', host, '--port', String(listenPort), '--data-dir', dataDir, ...(o.args ?? [])], {
      cwd: dir,
      env: serveEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = startedServer(child, o.timeoutMs ?? 20_000);
    servers.add(server.handle);
    child.once('exit', () => servers.delete(server.handle));
    await server.ready;
    return server.handle;
  };

  const sandbox: Sandbox = {
    dir,
    bin,
    dataDir,
    port,
    publicUrl,
    env,
    run,
    cli,
    cliJson,
    serve,
    database: database?.url,
    async cleanup() {
      await Promise.all([...servers].map((s) => s.stop()));
      await database?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (opts.init !== false) await cli(['init']);
  return sandbox;
}

/** Lists a directory (sorted), for "starts from an empty directory" assertions. */
export async function listDir(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

const URL_IN_LINE = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0)(?::\d+)?/;

/**
 * Waits until the server says where it listens (a JSON log line with `url`, or any line
 * containing http://127.0.0.1:PORT), then until GET /healthz answers 200.
 */
function startedServer(child: ChildProcess, timeoutMs: number): { handle: RunningServer; ready: Promise<void> } {
  const lines: string[] = [];
  let url = '';
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });

  let announce: (u: string) => void = () => {};
  const announced = new Promise<string>((resolve) => (announce = resolve));
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (url) return;
      let found: string | undefined;
      try {
        const rec = JSON.parse(line) as { url?: unknown };
        if (typeof rec.url === 'string') found = rec.url;
      } catch {
        found = URL_IN_LINE.exec(line)?.[0];
      }
      if (found) {
        url = found.replace(/\/+$/, '');
        announce(url);
      }
    });
  }

  const handle: RunningServer = {
    process: child,
    get url() {
      return url;
    },
    output: () => lines.join('\n'),
    async stop(graceMs = 5_000) {
      if (exited) return { ...exited, forced: false };
      child.kill('SIGTERM');
      let forced = false;
      const timer = setTimeout(() => {
        forced = true;
        child.kill('SIGKILL');
      }, graceMs);
      const result = await exitPromise;
      clearTimeout(timer);
      return { ...result, forced };
    },
  };

  const ready = (async () => {
    const deadline = Date.now() + timeoutMs;
    const failure = (why: string) => new Error(`engage serve ${why}\n--- server output ---\n${lines.join('\n')}`);
    const gone = exitPromise.then((e) => Promise.reject(failure(`exited (${e.code ?? e.signal}) before it was ready`)));
    gone.catch(() => {}); // raced below; once ready, a later exit is not a start-up failure
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(failure(`did not report its URL within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([announced, gone, tooLate]);
      for (;;) {
        if (exited) await gone;
        if (Date.now() > deadline) throw failure(`did not answer ${url}/healthz within ${timeoutMs} ms`);
        try {
          const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
          await res.arrayBuffer();
          if (res.status === 200) return;
        } catch {
          // not accepting connections yet
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      clearTimeout(timer);
    }
  })();
  ready.catch(() => void handle.stop());
  return { handle, ready };
}
