import { Command, CommanderError, Option } from 'commander';
import path from 'node:path';
import { systemClock } from '../src/platform/clock';
import { ConfigError, loadConfig, type Config } from '../src/platform/config';
import { openAppStore } from '../src/open-store';
import { HttpError } from '../src/platform/http/errors';
import { DomainError } from '../src/platform/errors';
import { NotInitialised, NotInitialisedError } from '../src/platform/data-dir';
import { createLogger } from '../src/platform/logger';
import { loadMasterKey } from '../src/platform/master-key';
import { redactUrl } from '../src/platform/store/database-url';
import { createServices, type Services } from '../src/services';

/** Options every command takes. */
export interface CommonOptions {
  dataDir?: string;
  config?: string;
  json?: boolean;
  logLevel?: string;
  publicUrl?: string;
  masterKeyFile?: string;
  databaseUrl?: string;
}

export function withCommon(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory (default ./.engage, or ENGAGE_DATA_DIR; engage init creates it)')
    .option('--config <file>', 'JSON configuration file (or ENGAGE_CONFIG)')
    .option('--public-url <url>', 'public base URL; issuers live under it')
    .option('--master-key-file <file>', 'master key file (default <data-dir>/master.key; or ENGAGE_MASTER_KEY)')
    .option('--database-url <url>', 'PostgreSQL URL (postgres://...) instead of the embedded SQLite file (or ENGAGE_DATABASE_URL)')
    .option('--json', 'print machine-readable JSON')
    .addOption(new Option('--log-level <level>', 'log level').choices(['debug', 'info', 'warn', 'error', 'silent']));
}

export function configFrom(opts: CommonOptions & Partial<Record<keyof Config, unknown>>, extra: Partial<Record<keyof Config, unknown>> = {}): Config {
  return loadConfig({
    env: process.env,
    file: opts.config,
    isTty: process.stderr.isTTY,
    flags: { dataDir: opts.dataDir, logLevel: opts.logLevel, publicUrl: opts.publicUrl, masterKeyFile: opts.masterKeyFile, databaseUrl: opts.databaseUrl, ...extra },
  });
}

export interface CommandContext {
  config: Config;
  services: Services;
  json: boolean;
}

/**
 * Opens the store, builds the services (the same ones `serve` uses), runs, closes. Creates
 * nothing (issue 23 point 2): the database, the master key and the control tenant must exist
 * (`engage init`, or `serve`); a missing one is a one-line NotInitialised naming where it looked.
 */
export async function withServices<T>(opts: CommonOptions, fn: (ctx: CommandContext) => Promise<T>): Promise<T> {
  return opened(opts, false, async (ctx) => fn({ ...ctx, json: !!opts.json }));
}

export interface Initialised {
  /** False when everything was already there (a second `engage init`). */
  created: boolean;
  dataDir: string;
  /** The SQLite file, or the PostgreSQL URL without its password. */
  database: string;
  /** The key file, or ENGAGE_MASTER_KEY. */
  masterKey: string;
  controlIssuer: string;
}

/**
 * `engage init`: the database (migrated), the master key and the control tenant, each made
 * unless it exists, as `serve` does at start; idempotent.
 */
export async function initialise(opts: CommonOptions): Promise<Initialised> {
  const config = configFrom(opts);
  const existed = await opened(opts, false, async () => true).catch((e: unknown) => {
    if (e instanceof NotInitialisedError) return false;
    throw e;
  });
  return opened(opts, true, async ({ services }) => ({
    created: !existed,
    dataDir: config.dataDir,
    database: config.databaseUrl ? redactUrl(config.databaseUrl) : path.join(config.dataDir, 'engage.db'),
    masterKey: config.masterKey ? 'ENGAGE_MASTER_KEY' : config.masterKeyFile,
    controlIssuer: (await services.tenants.ensureControl()).issuer,
  }));
}

/** The store, master key and services; with `create` the missing ones are made (init), else refused. */
async function opened<T>(opts: CommonOptions, create: boolean, fn: (ctx: Omit<CommandContext, 'json'>) => Promise<T>): Promise<T> {
  const config = configFrom(opts);
  const logger = createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, format: config.logFormat });
  const { store, pg } = await openAppStore(config, { logger, poolSize: 2, create });
  // A command's writes reach the serving processes' change-notice streams (NOTIFY; a command never listens).
  const noticeRelay = pg && (await import('../src/engage/sync-notices/pg-relay')).createPgNoticeRelay(pg, logger);
  try {
    // After `engage migrate` alone the tables exist, the control tenant does not.
    if (!create && !(await store.tenants.findControl())) throw NotInitialised.control(config.databaseUrl ? redactUrl(config.databaseUrl) : path.join(config.dataDir, 'engage.db'));
    // A command given no public URL leaves the stored one alone (it would move a running server's resources to 127.0.0.1:8080).
    const followPublicUrl = create || !config.publicUrlDerived;
    const services = createServices({ config, store, clock: systemClock, logger, masterKey: loadMasterKey(config, { create }), followPublicUrl, noticeRelay });
    const control = await services.tenants.ensureControl();
    await services.keys.verifyMasterKey(control.id);
    return await fn({ config, services });
  } finally {
    // What the command's writes said is published before the pool closes.
    await noticeRelay?.close();
    await store.close();
  }
}

/** Prints rows as an aligned table, or JSON with --json. */
export function output(json: boolean, value: unknown, columns?: string[]): void {
  if (json) {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
    return;
  }
  const rows = (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cols = columns ?? Object.keys(rows[0]);
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  process.stdout.write([line(cols), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n') + '\n');
}

/**
 * Exit statuses (README "Exit status"): 1 when a command ran and failed, 64 (EX_USAGE of BSD's
 * sysexits.h) when the command line is wrong (unknown command or option, a missing or invalid
 * argument). `users import` adds 2: it finished, some records failed.
 */
export const EXIT = { failed: 1, usage: 64 } as const;

/** Runs an action; any failure becomes one line on stderr (a JSON object with --json) and exit code 1. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (e) {
      reportFailure(e, jsonOf(args));
    }
  };
}

/** Whether the command was given --json: commander hands an action its Command last. */
function jsonOf(args: readonly unknown[]): boolean {
  const cmd = args.at(-1);
  return cmd instanceof Command && cmd.optsWithGlobals<{ json?: boolean }>().json === true;
}

/** A failure as the CLI prints it: a stable code (`error` under --json) and a line for people. */
export interface CliFailure {
  error: string;
  message: string;
}

export function cliFailure(e: unknown): CliFailure {
  if (e instanceof ConfigError) return { error: (e as { code?: string }).code ?? 'invalid_configuration', message: e.message };
  if (e instanceof DomainError) return { error: e.code, message: e.message };
  if (e instanceof HttpError) {
    const body = e.body() as { error?: string; code?: string } | null;
    return { error: body?.error ?? body?.code ?? 'request_failed', message: e.message };
  }
  if (e instanceof Error && (e as NodeJS.ErrnoException).code === 'SQLITE_BUSY') return { error: 'database_busy', message: 'the database is busy; try again' };
  return { error: 'command_failed', message: e instanceof Error ? e.message : String(e) };
}

/** One line on stderr: `engage: code: message` (describe), or with --json `{"error","message"}`. */
export function reportFailure(e: unknown, json: boolean): void {
  if (json) {
    const f = cliFailure(e);
    process.stderr.write(`${JSON.stringify({ error: f.error, message: f.message })}\n`);
  } else process.stderr.write(`engage: ${describe(e)}\n`);
  process.exitCode = EXIT.failed;
}

function describe(e: unknown): string {
  if (e instanceof ConfigError) return e.message;
  if (e instanceof DomainError) return e.code !== e.message ? `${e.code}: ${e.message}` : e.message;
  if (e instanceof HttpError) {
    const body = e.body() as { error?: string; code?: string } | null;
    const code = body?.error ?? body?.code;
    return code && code !== e.message ? `${code}: ${e.message}` : e.message;
  }
  if (e instanceof Error && (e as NodeJS.ErrnoException).code === 'SQLITE_BUSY') return 'the database is busy; try again';
  return e instanceof Error ? e.message : String(e);
}

/** --json anywhere before `--` (a usage error may come before commander has read the options). */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Usage errors (commander's: unknown command or option, missing or invalid argument) exit
 * EXIT.usage instead of commander's 1. With --json commander prints nothing; the caller reports
 * the CommanderError as `{"error":"usage_error","message"}` (usageFailure). Applied to every
 * command, since commander copies these settings only to subcommands made after them.
 */
export function configureUsageErrors(root: Command, json: boolean): void {
  const visit = (cmd: Command) => {
    cmd.exitOverride();
    if (json) cmd.configureOutput({ writeErr: () => {}, outputError: () => {} });
    cmd.commands.forEach(visit);
  };
  visit(root);
}

/** What parseAsync's rejection means: help or version (exit 0), a usage error (64), or a failure. */
export function reportParseFailure(e: unknown, json: boolean): void {
  if (!(e instanceof CommanderError)) return reportFailure(e, json);
  if (e.exitCode === 0) {
    process.exitCode = 0;
    return;
  }
  // Commander has printed its message unless --json; `(outputHelp)` is a command given without its subcommand.
  const message = e.code === 'commander.help' ? 'a subcommand is required (see --help)' : e.message.replace(/^error: /, '');
  if (json) process.stderr.write(`${JSON.stringify({ error: 'usage_error', message })}\n`);
  process.exitCode = EXIT.usage;
}

/** Reads all of standard input (for --password-stdin and friends). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
