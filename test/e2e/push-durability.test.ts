import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApnsFake } from '../fakes/apns-fake';
import { binaryPath, type RunningServer, type Sandbox } from '../helpers/binary';
import { createPushSandbox, iosAppWithTemplate, registerDevices, until as pollUntil, type PushSandbox } from '../helpers/push-e2e';

/**
 * Issue 13: a 202 means the deliveries are durably admitted. Sends to the built executable,
 * delivered to a loopback APNs (HTTP/2, TLS from a test CA); the process is killed with SIGKILL
 * while deliveries are in flight at the provider (held unanswered), then restarted: every
 * admitted delivery reaches the fake, and the fake, keyed by apns-id, accepts none twice.
 */
const TOPIC = 'com.example.durable';
const FIRST = 10;
const IN_FLIGHT = 30;

let p: PushSandbox;
let sandbox: Sandbox;
let apns: ApnsFake;
let env: Record<string, string>;
const until = (what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 90_000) => pollUntil(what, cond, timeoutMs);

beforeAll(async () => {
  p = await createPushSandbox({ prefix: 'engage-push-', topic: TOPIC });
  ({ sandbox, apns } = p);
  // A 10 s claim (ENGAGE_WORK_LEASE) instead of 30 s: the killed process's claimed deliveries are taken over sooner.
  env = { ...p.env, ENGAGE_WORK_LEASE: '10' };
});
afterAll(() => p?.close());

describe.skipIf(!existsSync(path.resolve(__dirname, '../../dist/engage')))('push delivery durability (dist/engage, kill -9)', () => {
  it('every admitted delivery reaches APNs after a SIGKILL mid-flight, none accepted twice', async () => {
    binaryPath();
    const cli = p.cli;
    const { environment, app, key } = await iosAppWithTemplate(p, {
      environment: 'durable',
      topic: TOPIC,
      template: { key: 'receipt', variables: { n: { type: 'number' } }, localizations: { en: { title: 'Receipt {{n}}', body: 'Thanks' } } },
    });

    let server: RunningServer = await sandbox.serve({ env });
    const installations = await registerDevices(server, app.appKey, 10);

    const admitted: string[] = [];
    const sends = new Map<number, string>();
    const sendOne = async (n: number) => {
      const res = await fetch(`${server.url}/api/v1/environments/${environment.id}/transactional/receipt/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
        body: JSON.stringify({ recipient: { type: 'INSTALLATION_ID', value: installations[n % installations.length] }, variables: { n }, idempotencyKey: `receipt-${n}` }),
      });
      expect(res.status).toBe(202);
      const body = (await res.json()) as { requestId: string; diagnostics: { code: string; deliveryId: string }[] };
      sends.set(n, body.requestId);
      expect(body.diagnostics.map((d) => d.code)).toEqual(['TARGETED']);
      admitted.push(body.diagnostics[0].deliveryId);
    };

    // Delivered and recorded before the kill.
    for (let n = 0; n < FIRST; n++) await sendOne(n);
    await until('the first deliveries', () => admitted.every((id) => apns.delivered.has(id)));

    // In flight at the provider, unanswered, when the process dies.
    apns.hold();
    await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => sendOne(FIRST + i)));
    await until('deliveries in flight', () => apns.pending() === IN_FLIGHT);
    server.process.kill('SIGKILL');
    await new Promise((r) => server.process.once('exit', r));
    // Answers written after the fake saw the connection go would reach nobody: release only then.
    await until('the fake to see the connection closed', () => apns.openConnections() === 0, 10_000);
    apns.release();
    expect(admitted.filter((id) => apns.delivered.has(id))).toHaveLength(FIRST);

    server = await sandbox.serve({ env });
    await until('every admitted delivery after the restart', () => admitted.every((id) => apns.delivered.has(id)));
    expect(new Set(admitted).size).toBe(FIRST + IN_FLIGHT);
    expect([...apns.delivered.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(apns.delivered.size).toBe(FIRST + IN_FLIGHT);

    // Inspection sees them all SENT.
    const first = await cli<{ state: string; attempts: number }[]>(['deliveries', 'list', '--installation', installations[0]]);
    expect(first.length).toBeGreaterThan(0);
    expect(first.every((d) => d.state === 'SENT')).toBe(true);
    const shown = await cli<{ templateKey: string; idempotencyKey: string; deliveries: Record<string, number> }>(['sends', 'show', sends.get(FIRST)!]);
    expect(shown).toMatchObject({ templateKey: 'receipt', idempotencyKey: `receipt-${FIRST}`, deliveries: { SENT: 1 } });
    const template = await cli<{ sends: number; deliveries: Record<string, number> }>(['templates', 'show', 'receipt', '--environment', environment.id]);
    expect(template).toMatchObject({ sends: FIRST + IN_FLIGHT, deliveries: { SENT: FIRST + IN_FLIGHT } });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/engage_push_delivery_attempts_total\{provider="APNS",outcome="sent"\} \d+/);
  }, 180_000);

  it('the CLI reports a bad template file or credential in one line with a non-zero exit', async () => {
    const environment = await sandbox.cliJson<{ id: string }>(['environments', 'create', '--name', 'cli-errors'], { env });
    const app = await sandbox.cliJson<{ id: string }>(['apps', 'create', '--environment', environment.id, '--platform', 'ANDROID', '--name', 'droid'], { env });
    writeFileSync(path.join(sandbox.dir, 'bad.json'), JSON.stringify({ key: 'Bad Key', apps: ['droid'], defaultLocale: 'en', localizations: { en: { title: 't', body: 'b' } } }));
    const bad = await sandbox.run(['templates', 'create', '--environment', environment.id, '--file', path.join(sandbox.dir, 'bad.json')], { env });
    expect([bad.code, bad.stderr]).toEqual([1, 'engage: invalid_request: key: must match ^[a-z][a-z0-9_.-]{0,127}$\n']);
    writeFileSync(path.join(sandbox.dir, 'sa.json'), JSON.stringify({ type: 'service_account', project_id: 'p', client_email: 'e@x' }));
    const sa = await sandbox.run(['apps', 'set-fcm', app.id, '--service-account', path.join(sandbox.dir, 'sa.json')], { env });
    expect([sa.code, sa.stderr]).toEqual([1, 'engage: invalid_credentials: service-account.private_key: is required\n']);
    const list = await sandbox.run(['deliveries', 'list'], { env });
    expect([list.code, list.stderr]).toEqual([1, 'engage: invalid_request: give --send or --installation\n']);
  });
});
