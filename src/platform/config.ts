import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDatabaseUrl, redactUrl } from './store/database-url';
import { checkSmtpUrl, redactSmtpUrl } from './mail/smtp-url';
import { parseCidrList } from './cidr';

/**
 * One schema for configuration: defaults < optional JSON file < ENGAGE_* environment < flags.
 * Every setting is validated at start; a bad one stops the process with a message naming it.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Config {
  dataDir: string;
  host: string;
  port: number;
  /** Public base URL; managed issuers live under it. Derived from host and port when unset. */
  publicUrl: string;
  /** True when no public URL was given (flag, environment or file) and it was derived from host and port. */
  publicUrlDerived?: boolean;
  logLevel: LogLevel;
  logFormat: 'json' | 'pretty';
  /** Base64 (32 bytes) master key; when absent a key file in the data directory is used. */
  masterKey?: string;
  masterKeyFile: string;
  /** Lifetimes in seconds. */
  accessTokenTtl: number;
  idTokenTtl: number;
  refreshTokenTtl: number;
  authorizationCodeTtl: number;
  refreshReuseGraceSeconds: number;
  sessionTtl: number;
  bindingCodeTtl: number;
  /**
   * Reverse proxies in front of the server that append to X-Forwarded-For (0: none, the peer
   * is the client). Decides the client address that sign-in throttling counts.
   */
  trustedProxies: number;
  /**
   * Largest request body the mobile edge reads, in bytes; a larger one is a 413. The default
   * holds a batch at every bound of spec 01 with room for its free-form values.
   */
  maxRequestBytes: number;
  /** `serve`: processes sharing the port (1: this process serves alone). */
  workers: number;
  /**
   * `serve`: on SIGTERM or SIGINT, how long in-flight requests may take to finish (seconds)
   * before their connections are closed and the process exits.
   */
  shutdownTimeout: number;
  /**
   * `postgres://` or `postgresql://` URL selecting the PostgreSQL engine (issue 9); unset, the
   * embedded SQLite file in the data directory. Holds a password: never print it, use
   * `redactedConfig` (or redactUrl, platform/store/postgres.ts) to show it.
   */
  databaseUrl?: string;
  /** `serve` on PostgreSQL: connections each process keeps open at most (its pool). */
  databasePoolSize: number;
  /** Provider base URLs (issue 13): APNs production and sandbox (HTTP/2), FCM HTTP v1. Tests point them at loopback fakes. */
  apnsUrl: string;
  apnsSandboxUrl: string;
  fcmUrl: string;
  /** PEM file of extra certificate authorities trusted for the provider connections (a test CA); unset, the system's. */
  pushCaFile?: string;
  /**
   * SMTP server for the native adapter's mail (`smtp://` STARTTLS, `smtps://` TLS, user:password
   * in the URL). Unset: mail flows answer 503 and `serve` warns. Holds a password: never print
   * it, use `redactedConfig`.
   */
  smtpUrl?: string;
  /** The From address of that mail (default `no-reply@<public URL host>`). */
  mailFrom?: string;
  /**
   * Whether the control issuer serves the management API (`{control_issuer}/identity/admin`);
   * false (`--no-administration-api`, ENGAGE_ADMINISTRATION_API=false): every route answers
   * 404 administration_disabled (spec 03).
   */
  administrationApi: boolean;
  /**
   * `serve`: one `info` line per request (method, route pattern, status, duration, request id;
   * never the query string). false (`--no-access-log`, ENGAGE_ACCESS_LOG=false): none.
   */
  accessLog: boolean;
  /**
   * `serve`: `host:port` (`[v6]:port`) of a listener of its own for GET /metrics (issue 21); then
   * the main port does not serve it. Unset: the main port serves it to loopback peers only, or
   * with `metricsToken` to bearers of that token (platform/metrics-access.ts).
   */
  metricsListen?: string;
  /**
   * A bearer token GET /metrics then requires, wherever it is served (at least 16 characters;
   * environment or configuration file only: a flag shows in `ps`). Never printed.
   */
  metricsToken?: string;
  /**
   * `serve`: whether the web console is served (issue 25); false (`--no-console`,
   * ENGAGE_CONSOLE=false): its paths answer 404 like any unknown path.
   */
  console: boolean;
  /** Where the console is served (`/console`): one or more path segments, none of the APIs' own prefixes. */
  consolePath: string;
  /**
   * `serve`: seconds a change-notice stream (GET /v1/sdk/sync/events) stays open without sending
   * a notice; then it ends and the SDK reconnects (issue 26).
   */
  syncStreamIdle: number;
  /** `serve`: seconds between the heartbeat comments of a change-notice stream (proxies close silent connections). */
  syncStreamHeartbeat: number;
  /** `serve`: change-notice streams one process holds at most; beyond, 503 with Retry-After. */
  syncStreamsMax: number;
  /**
   * Outbound webhooks (issue 28): private, loopback, link-local and other non-public
   * destinations they may reach after all, as comma-separated CIDR ranges (`10.0.0.0/8,fd00::/8`)
   * or `*` (any). Unset: none (engage/webhooks/destinations.ts).
   */
  webhookAllowPrivate?: string;
  /**
   * `serve`: seconds a claim on background work lasts (automation runs, push deliveries, durable
   * work items): how long the work a killed process held waits before another process takes it
   * over. Unset: each worker's own (30 s). For tests and operators who want a faster takeover;
   * an attempt must finish within it (a push starts only with two thirds of it left).
   */
  workLease?: number;
}

export class ConfigError extends Error {}

type Raw = Record<string, unknown>;

interface Setting {
  key: keyof Config;
  env: string;
  kind: 'string' | 'int' | 'url' | 'enum' | 'database-url' | 'smtp-url' | 'email' | 'boolean' | 'listen' | 'token' | 'path' | 'cidrs';
  values?: readonly string[];
  min?: number;
  max?: number;
}

const SETTINGS: Setting[] = [
  { key: 'dataDir', env: 'ENGAGE_DATA_DIR', kind: 'string' },
  { key: 'host', env: 'ENGAGE_HOST', kind: 'string' },
  { key: 'port', env: 'ENGAGE_PORT', kind: 'int', min: 0, max: 65535 },
  { key: 'publicUrl', env: 'ENGAGE_PUBLIC_URL', kind: 'url' },
  { key: 'logLevel', env: 'ENGAGE_LOG_LEVEL', kind: 'enum', values: ['debug', 'info', 'warn', 'error', 'silent'] },
  { key: 'logFormat', env: 'ENGAGE_LOG_FORMAT', kind: 'enum', values: ['json', 'pretty'] },
  { key: 'masterKey', env: 'ENGAGE_MASTER_KEY', kind: 'string' },
  { key: 'masterKeyFile', env: 'ENGAGE_MASTER_KEY_FILE', kind: 'string' },
  { key: 'accessTokenTtl', env: 'ENGAGE_ACCESS_TOKEN_TTL', kind: 'int', min: 30, max: 86400 },
  { key: 'idTokenTtl', env: 'ENGAGE_ID_TOKEN_TTL', kind: 'int', min: 30, max: 86400 },
  { key: 'refreshTokenTtl', env: 'ENGAGE_REFRESH_TOKEN_TTL', kind: 'int', min: 60, max: 31536000 },
  { key: 'authorizationCodeTtl', env: 'ENGAGE_AUTHORIZATION_CODE_TTL', kind: 'int', min: 10, max: 600 },
  { key: 'refreshReuseGraceSeconds', env: 'ENGAGE_REFRESH_REUSE_GRACE', kind: 'int', min: 0, max: 300 },
  { key: 'sessionTtl', env: 'ENGAGE_SESSION_TTL', kind: 'int', min: 60, max: 31536000 },
  { key: 'bindingCodeTtl', env: 'ENGAGE_BINDING_CODE_TTL', kind: 'int', min: 10, max: 86400 },
  { key: 'trustedProxies', env: 'ENGAGE_TRUSTED_PROXIES', kind: 'int', min: 0, max: 10 },
  { key: 'maxRequestBytes', env: 'ENGAGE_MAX_REQUEST_BYTES', kind: 'int', min: 64 * 1024, max: 1024 * 1024 * 1024 },
  { key: 'workers', env: 'ENGAGE_WORKERS', kind: 'int', min: 1, max: 256 },
  { key: 'shutdownTimeout', env: 'ENGAGE_SHUTDOWN_TIMEOUT', kind: 'int', min: 0, max: 600 },
  { key: 'databaseUrl', env: 'ENGAGE_DATABASE_URL', kind: 'database-url' },
  { key: 'databasePoolSize', env: 'ENGAGE_DATABASE_POOL_SIZE', kind: 'int', min: 1, max: 1000 },
  { key: 'apnsUrl', env: 'ENGAGE_APNS_URL', kind: 'url' },
  { key: 'apnsSandboxUrl', env: 'ENGAGE_APNS_SANDBOX_URL', kind: 'url' },
  { key: 'fcmUrl', env: 'ENGAGE_FCM_URL', kind: 'url' },
  { key: 'pushCaFile', env: 'ENGAGE_PUSH_CA_FILE', kind: 'string' },
  { key: 'smtpUrl', env: 'ENGAGE_SMTP_URL', kind: 'smtp-url' },
  { key: 'mailFrom', env: 'ENGAGE_MAIL_FROM', kind: 'email' },
  { key: 'administrationApi', env: 'ENGAGE_ADMINISTRATION_API', kind: 'boolean' },
  { key: 'accessLog', env: 'ENGAGE_ACCESS_LOG', kind: 'boolean' },
  { key: 'metricsListen', env: 'ENGAGE_METRICS_LISTEN', kind: 'listen' },
  { key: 'metricsToken', env: 'ENGAGE_METRICS_TOKEN', kind: 'token' },
  { key: 'console', env: 'ENGAGE_CONSOLE', kind: 'boolean' },
  { key: 'consolePath', env: 'ENGAGE_CONSOLE_PATH', kind: 'path' },
  { key: 'syncStreamIdle', env: 'ENGAGE_SYNC_STREAM_IDLE', kind: 'int', min: 1, max: 86400 },
  { key: 'syncStreamHeartbeat', env: 'ENGAGE_SYNC_STREAM_HEARTBEAT', kind: 'int', min: 1, max: 3600 },
  { key: 'syncStreamsMax', env: 'ENGAGE_SYNC_STREAMS_MAX', kind: 'int', min: 0, max: 1_000_000 },
  { key: 'webhookAllowPrivate', env: 'ENGAGE_WEBHOOK_ALLOW_PRIVATE', kind: 'cidrs' },
  { key: 'workLease', env: 'ENGAGE_WORK_LEASE', kind: 'int', min: 3, max: 3600 },
];

/** First path segments the server's own routes use: the console may not sit under one of them. */
const RESERVED_SEGMENTS = new Set(['t', 'oauth2', '.well-known', 'v1', 'api', 'identity', 'engage', 'healthz', 'readyz', 'metrics', 'openapi.json', 'assets']);

/** `host:port` or `[v6]:port` (a listen address), or undefined when it is not one. */
export function parseListen(value: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  return m && port <= 65535 ? { host: m[1] ?? m[2], port } : undefined;
}

export const DEFAULTS = {
  dataDir: '.engage',
  host: '127.0.0.1',
  port: 8080,
  logLevel: 'info',
  accessTokenTtl: 600,
  idTokenTtl: 3600,
  refreshTokenTtl: 30 * 86400,
  authorizationCodeTtl: 60,
  refreshReuseGraceSeconds: 10,
  sessionTtl: 7 * 86400,
  bindingCodeTtl: 600,
  trustedProxies: 0,
  maxRequestBytes: 8 * 1024 * 1024,
  workers: 1,
  databasePoolSize: 20,
  shutdownTimeout: 10,
  apnsUrl: 'https://api.push.apple.com',
  apnsSandboxUrl: 'https://api.sandbox.push.apple.com',
  fcmUrl: 'https://fcm.googleapis.com',
  administrationApi: true,
  accessLog: true,
  console: true,
  consolePath: '/console',
  syncStreamIdle: 600,
  syncStreamHeartbeat: 25,
  syncStreamsMax: 20_000,
} satisfies Partial<Config>;

function coerce(s: Setting, value: unknown, origin: string): unknown {
  const name = `${s.key} (${origin})`;
  switch (s.kind) {
    case 'string':
      if (typeof value !== 'string' || value === '') throw new ConfigError(`invalid setting ${name}: expected a non-empty string`);
      return value;
    case 'int': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
      if (!Number.isInteger(n) || n < (s.min ?? -Infinity) || n > (s.max ?? Infinity))
        throw new ConfigError(`invalid setting ${name}: expected an integer from ${s.min} to ${s.max}, got ${JSON.stringify(value)}`);
      return n;
    }
    case 'url': {
      if (typeof value !== 'string') throw new ConfigError(`invalid setting ${name}: expected a URL`);
      let u: URL;
      try {
        u = new URL(value);
      } catch {
        throw new ConfigError(`invalid setting ${name}: ${JSON.stringify(value)} is not a URL`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`invalid setting ${name}: must be http or https`);
      if (u.search || u.hash || (u.pathname !== '/' && u.pathname !== '')) throw new ConfigError(`invalid setting ${name}: must be scheme, host and port only (no path, query or fragment)`);
      return value.replace(/\/+$/, '');
    }
    case 'database-url':
      if (typeof value !== 'string' || value === '') throw new ConfigError(`invalid setting ${name}: expected a postgres:// URL`);
      try {
        parseDatabaseUrl(value);
      } catch (e) {
        // The message names the URL with its password redacted, never the value itself.
        throw new ConfigError(`invalid setting ${name}: ${(e as Error).message}`);
      }
      return value;
    case 'smtp-url': {
      const problem = typeof value === 'string' ? checkSmtpUrl(value) : 'expected an smtp:// or smtps:// URL';
      // The message never repeats the value: it may hold the SMTP password.
      if (problem) throw new ConfigError(`invalid setting ${name}: ${problem}`);
      return value;
    }
    case 'email':
      if (typeof value !== 'string' || !/^[^\s@<>]{1,64}@[^\s@<>]{1,255}$/.test(value)) throw new ConfigError(`invalid setting ${name}: expected an email address`);
      return value;
    case 'listen':
      if (typeof value !== 'string' || !parseListen(value)) throw new ConfigError(`invalid setting ${name}: expected host:port (or [IPv6]:port), got ${JSON.stringify(value)}`);
      return value;
    case 'token':
      // The message never repeats the value.
      if (typeof value !== 'string' || value.length < 16 || value.length > 512 || !/^[\x21-\x7e]+$/.test(value))
        throw new ConfigError(`invalid setting ${name}: expected 16 to 512 printable ASCII characters without spaces`);
      return value;
    case 'path': {
      const segments = typeof value === 'string' && /^(\/[A-Za-z0-9._~-]+)+$/.test(value) ? value.split('/').slice(1) : undefined;
      if (!segments || segments.some((seg) => seg === '.' || seg === '..'))
        throw new ConfigError(`invalid setting ${name}: expected a path such as /console (segments of letters, digits, ".", "_", "~" or "-")`);
      if (RESERVED_SEGMENTS.has(segments[0])) throw new ConfigError(`invalid setting ${name}: /${segments[0]} is used by the server's own routes`);
      return value;
    }
    case 'cidrs':
      if (typeof value !== 'string') throw new ConfigError(`invalid setting ${name}: expected CIDR ranges separated by commas, or *`);
      try {
        parseCidrList(value);
      } catch (e) {
        throw new ConfigError(`invalid setting ${name}: ${(e as Error).message}`);
      }
      return value.trim();
    case 'boolean':
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw new ConfigError(`invalid setting ${name}: expected true or false`);
    case 'enum':
      if (typeof value !== 'string' || !s.values!.includes(value))
        throw new ConfigError(`invalid setting ${name}: expected one of ${s.values!.join(', ')}`);
      return value;
  }
}

export interface ConfigSources {
  /** Values from command-line flags (undefined entries are ignored). */
  flags?: Partial<Record<keyof Config, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** Path of a JSON configuration file (flag --config or ENGAGE_CONFIG). */
  file?: string;
  isTty?: boolean;
}

export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const merged: Raw = { ...DEFAULTS };
  const origin: Record<string, string> = {};
  const filePath = sources.file ?? env.ENGAGE_CONFIG;
  if (filePath) {
    let fileValues: Raw;
    try {
      fileValues = JSON.parse(readFileSync(filePath, 'utf8')) as Raw;
    } catch (e) {
      throw new ConfigError(`cannot read configuration file ${filePath}: ${(e as Error).message}`);
    }
    if (typeof fileValues !== 'object' || fileValues === null || Array.isArray(fileValues))
      throw new ConfigError(`configuration file ${filePath} must hold a JSON object`);
    for (const [k, v] of Object.entries(fileValues)) {
      if (!SETTINGS.some((s) => s.key === k)) throw new ConfigError(`unknown setting ${k} in ${filePath}`);
      merged[k] = v;
      origin[k] = filePath;
    }
  }
  for (const s of SETTINGS) {
    const v = env[s.env];
    if (v !== undefined && v !== '') {
      merged[s.key] = v;
      origin[s.key] = s.env;
    }
  }
  for (const [k, v] of Object.entries(sources.flags ?? {})) {
    if (v !== undefined) {
      merged[k] = v;
      origin[k] = `--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`;
    }
  }
  const out: Raw = {};
  for (const s of SETTINGS) {
    if (merged[s.key] !== undefined) out[s.key] = coerce(s, merged[s.key], origin[s.key] ?? 'default');
  }
  const cfg = out as unknown as Config;
  cfg.dataDir = path.resolve(cfg.dataDir);
  cfg.masterKeyFile = cfg.masterKeyFile ? path.resolve(cfg.masterKeyFile) : path.join(cfg.dataDir, 'master.key');
  cfg.logFormat ??= sources.isTty ? 'pretty' : 'json';
  // Derived from host and port, not given: a CLI command then leaves the URLs stored in the database alone (tenants/control objects).
  cfg.publicUrlDerived = !cfg.publicUrl;
  if (!cfg.publicUrl) {
    const h = cfg.host === '0.0.0.0' || cfg.host === '::' ? '127.0.0.1' : cfg.host;
    cfg.publicUrl = `http://${h.includes(':') ? `[${h}]` : h}:${cfg.port}`;
  }
  if (cfg.smtpUrl && !cfg.mailFrom) cfg.mailFrom = `no-reply@${new URL(cfg.publicUrl).hostname}`;
  return cfg;
}

/** The configuration as it may be shown (logs, `--json` output, errors): secrets redacted. */
export function redactedConfig(cfg: Config): Record<string, unknown> {
  const out: Record<string, unknown> = { ...cfg };
  if (cfg.databaseUrl) out.databaseUrl = redactUrl(cfg.databaseUrl);
  if (cfg.masterKey) out.masterKey = '[redacted]';
  if (cfg.smtpUrl) out.smtpUrl = redactSmtpUrl(cfg.smtpUrl);
  if (cfg.metricsToken) out.metricsToken = '[redacted]';
  return out;
}
