import { expect } from 'vitest';
import { createSandbox } from '../helpers/binary';

/**
 * engage as a user runs it: the built executable copied to a temporary directory (the build
 * engineer's sandbox in test/helpers/binary.ts), its CLI for set-up and `engage serve` on a
 * loopback port. The CLI and the server share one public URL, so printed issuers are real.
 */
export interface Engage {
  dataDir: string;
  url: string;
  cli(args: string[], stdin?: string): Promise<string>;
  cliJson<T>(args: string[], stdin?: string): Promise<T>;
  stop(): Promise<void>;
}

export async function startEngage(): Promise<Engage> {
  const sandbox = await createSandbox({ prefix: 'engage-conformance-' });
  try {
    const server = await sandbox.serve();
    return {
      dataDir: sandbox.dataDir,
      url: server.url,
      cli: (args, stdin) => sandbox.cli(args, { stdin }),
      cliJson: <T>(args: string[], stdin?: string) => sandbox.cliJson<T>(args, { stdin }),
      stop: () => sandbox.cleanup(),
    };
  } catch (err) {
    await sandbox.cleanup();
    throw err;
  }
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
  expect(tenant.issuer).toBe(`${e.url}/t/${slug}`);
  return { tenantId: tenant.id, issuer: tenant.issuer, webSecret: web.clientSecret, user, credential };
}
