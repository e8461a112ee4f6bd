import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { startApnsFake, type ApnsFake } from '../fakes/apns-fake';
import { createTestCa } from '../fakes/test-ca';
import { createSandbox, type RunningServer, type Sandbox } from './binary';

/**
 * What the push e2e tests of the built executable share: a sandbox whose serving processes
 * reach a loopback APNs (HTTP/2, TLS from a test CA), an iOS app with its .p8 key and a
 * published template, and devices registered through the mobile edge.
 */
export interface PushSandbox {
  sandbox: Sandbox;
  apns: ApnsFake;
  /** The environment variables that point `engage` at the fake. */
  env: Record<string, string>;
  cli<T>(args: string[]): Promise<T>;
  close(): Promise<void>;
}

export async function createPushSandbox(opts: { prefix: string; topic: string }): Promise<PushSandbox> {
  const ca = createTestCa();
  const apns = await startApnsFake({ ca, topic: opts.topic });
  const sandbox = await createSandbox({ prefix: opts.prefix });
  const env = { ENGAGE_APNS_URL: apns.url, ENGAGE_APNS_SANDBOX_URL: apns.url, ENGAGE_PUSH_CA_FILE: ca.caFile };
  return {
    sandbox,
    apns,
    env,
    cli: <T>(args: string[]) => sandbox.cliJson<T>(args, { env }),
    async close() {
      await sandbox.cleanup();
      await apns.close();
    },
  };
}

/** An environment with an iOS app (APNs key registered with the fake), an access key, and `template` created and published. */
export async function iosAppWithTemplate(p: PushSandbox, o: { environment: string; topic: string; template: Record<string, unknown> }) {
  const environment = await p.cli<{ id: string }>(['environments', 'create', '--name', o.environment]);
  const app = await p.cli<{ id: string; appKey: string }>(['apps', 'create', '--environment', environment.id, '--platform', 'IOS', '--name', 'ios']);
  const key = await p.cli<{ key: string }>(['access-keys', 'create', '--environment', environment.id, '--app', app.id]);
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  p.apns.addKey('KEYID12345', 'TEAMID1234', pem);
  writeFileSync(path.join(p.sandbox.dir, 'AuthKey.p8'), pem);
  await p.cli(['apps', 'set-apns', app.id, '--key-file', path.join(p.sandbox.dir, 'AuthKey.p8'), '--key-id', 'KEYID12345', '--team-id', 'TEAMID1234', '--topic', o.topic]);
  const file = path.join(p.sandbox.dir, `${String(o.template.key)}.json`);
  writeFileSync(file, JSON.stringify({ apps: ['ios'], defaultLocale: 'en', ...o.template }));
  await p.cli(['templates', 'create', '--environment', environment.id, '--file', file]);
  await p.cli(['templates', 'publish', String(o.template.key), '--environment', environment.id]);
  return { environment, app, key };
}

/** `n` iOS installations bootstrapped through the mobile edge, each with push authorized and a token; their ids. */
export async function registerDevices(server: RunningServer, appKey: string, n: number): Promise<string[]> {
  const installations: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.url}/v1/sdk/installations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey },
      body: JSON.stringify({ platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
    });
    const s = (await res.json()) as { installationId: string; credential: string };
    const op = (type: string, payload: unknown) => ({ operationId: randomUUID(), generation: 0, type, occurredAt: new Date().toISOString(), payload });
    const batch = await fetch(`${server.url}/v1/sdk/operations:batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.credential}` },
      body: JSON.stringify({ batchId: randomUUID(), operations: [op('PUSH_PERMISSION_SET', { state: 'AUTHORIZED' }), op('PUSH_TOKEN_SET', { token: randomBytes(32).toString('hex') })] }),
    });
    expect(batch.status).toBe(202);
    installations.push(s.installationId);
  }
  return installations;
}

/** Polls `cond` every 10 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
