import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Runs engage as a user would: the built executable (dist/engage, or ENGAGE_BIN), each CLI
 * command against a temporary --data-dir, and `serve --port 0` on loopback. Without a build
 * (a developer's tree) it falls back to `tsx cmd/engage.ts` so the suite still runs.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function command(): { cmd: string; prefix: string[] } {
  const bin = process.env.ENGAGE_BIN ?? path.join(ROOT, 'dist/engage');
  if (existsSync(bin)) return { cmd: bin, prefix: [] };
  return { cmd: process.execPath, prefix: [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'cmd/engage.ts')] };
}

export function usingBuiltBinary(): boolean {
  return command().prefix.length === 0;
}

export interface Engage {
  dataDir: string;
  url: string;
  cli(args: string[], stdin?: string): Promise<string>;
  cliJson<T>(args: string[], stdin?: string): Promise<T>;
  stop(): Promise<void>;
}

function run(dataDir: string, args: string[], stdin?: string): Promise<string> {
  const { cmd, prefix } = command();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...prefix, ...args, '--data-dir', dataDir], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ENGAGE_LOG_LEVEL: 'warn' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`engage ${args.join(' ')} exited ${code}: ${err}`))));
    child.stdin.end(stdin ?? '');
  });
}

/** Starts `engage serve --port 0` on a fresh data directory and waits for its "url" log field. */
export async function startEngage(): Promise<Engage> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'engage-conformance-'));
  await run(dataDir, ['migrate']);
  const { cmd, prefix } = command();
  const child: ChildProcess = spawn(cmd, [...prefix, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ENGAGE_LOG_FORMAT: 'json', ENGAGE_LOG_LEVEL: 'info' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('engage serve did not report its url')), 30_000);
    const lines = [createInterface({ input: child.stdout! }), createInterface({ input: child.stderr! })];
    for (const rl of lines)
      rl.on('line', (line) => {
        try {
          const rec = JSON.parse(line) as { url?: string };
          if (rec.url) {
            clearTimeout(timer);
            resolve(rec.url);
          }
        } catch {
          // not a log record
        }
      });
    child.on('exit', (code) => reject(new Error(`engage serve exited ${code}`)));
  });
  return {
    dataDir,
    url,
    cli: (args, stdin) => run(dataDir, args, stdin),
    cliJson: async <T>(args: string[], stdin?: string) => JSON.parse(await run(dataDir, [...args, '--json'], stdin)) as T,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const PASSWORD = 'correct horse battery';
export const API = 'https://api.example';

/**
 * A tenant with an API, a confidential EXPLICIT web client, a public PRE_AUTHORIZED native
 * client, a user and a resource-server credential, all made through the CLI.
 */
export async function seedThroughCli(e: Engage, redirectUri: string, slug = 'acme') {
  const tenant = await e.cliJson<{ issuer: string; id: string }>(['tenants', 'create', '--slug', slug]);
  await e.cli(['resources', 'create', '--tenant', slug, '--uri', API, '--audience', 'orders-api', '--scope', 'orders.read']);
  const web = await e.cliJson<{ clientId: string; clientSecret: string }>([
    'clients', 'create', '--tenant', slug, '--client-id', 'web', '--name', 'Acme Web', '--type', 'WEB', '--auth', 'CLIENT_SECRET_BASIC',
    '--redirect-uri', redirectUri, '--scope', 'openid email offline_access orders.read', '--consent', 'EXPLICIT', '--default-resource', API,
  ]);
  await e.cli([
    'clients', 'create', '--tenant', slug, '--client-id', 'app', '--name', 'Acme App', '--type', 'NATIVE', '--auth', 'NONE',
    '--redirect-uri', redirectUri, '--scope', 'openid email offline_access orders.read', '--consent', 'PRE_AUTHORIZED', '--default-resource', API,
  ]);
  const user = await e.cliJson<{ id: string; subject: string }>(['users', 'create', '--tenant', slug, '--email', 'alice@example.com', '--verified', '--password-stdin'], PASSWORD);
  const credential = await e.cliJson<{ credentialId: string; credentialSecret: string }>(['credentials', 'issue', '--tenant', slug, '--resource', API]);
  // The CLI prints issuers under its own default public URL; the server's follows its port.
  return { tenantId: tenant.id, issuer: `${e.url}/t/${slug}`, webSecret: web.clientSecret, user, credential };
}
