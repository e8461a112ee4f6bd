import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

/**
 * Issue 24 point 1 from the CLI of the built executable, on the database: the same service as
 * the administration API's environment routes. Every command answers --json; a refusal is one
 * line on stderr and exit status 1. `delete` runs the erasure's work item in the CLI process
 * and waits for it, unless --no-wait (a serving process erases it then).
 */
let sandbox: Sandbox;
type Env = { id: string; name: string; displayName: string; status: string; identityTenantId: string | null; configurationManaged: boolean };

beforeAll(async () => {
  sandbox = await createSandbox({ prefix: 'engage-envs-cli-' });
}, 60_000);
afterAll(async () => {
  await sandbox?.cleanup();
});

describe('engage environments', () => {
  it('create with a display name, update, disable, enable; a name that is no slug is refused', async () => {
    const env = await sandbox.cliJson<Env>(['environments', 'create', '--name', 'prod', '--display-name', 'Production']);
    expect(env).toMatchObject({ name: 'prod', displayName: 'Production', status: 'ACTIVE', identityTenantId: null, configurationManaged: false });
    expect(await sandbox.cliJson<Env>(['environments', 'show', 'prod'])).toEqual(env);
    const bad = await sandbox.run(['environments', 'create', '--name', 'Prod Env']);
    expect([bad.code, bad.stderr.split('\n').filter(Boolean).length]).toEqual([1, 1]);
    expect(bad.stderr).toMatch(/^engage: invalid_request: name: must match/);
    const taken = await sandbox.run(['environments', 'create', '--name', 'prod']);
    expect([taken.code, taken.stderr.trim()]).toEqual([1, 'engage: name_taken: environment name prod is taken']);
    expect(await sandbox.cliJson<Env>(['environments', 'update', 'prod', '--display-name', 'Prod (EU)'])).toMatchObject({ displayName: 'Prod (EU)' });
    expect(await sandbox.cliJson<Env>(['environments', 'update', 'prod', '--no-display-name'])).toMatchObject({ displayName: 'prod' });
    expect(await sandbox.cliJson<Env>(['environments', 'disable', 'prod'])).toMatchObject({ status: 'DISABLED' });
    expect(await sandbox.cliJson<Env>(['environments', 'enable', env.id])).toMatchObject({ status: 'ACTIVE' });
  });

  it('overview: the counts of an environment', async () => {
    await sandbox.cli(['environments', 'create', '--name', 'counted']);
    await sandbox.cli(['apps', 'create', '--environment', 'counted', '--platform', 'IOS', '--name', 'shop-ios']);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- deep reads of a JSON answer
    const o = await sandbox.cliJson<Record<string, any>>(['environments', 'overview', 'counted']);
    expect(o.installations).toMatchObject({ total: 0, bound: 0, apps: [{ name: 'shop-ios', installations: 0, pushReady: 0 }] });
    expect(o.lastHour).toEqual({ operations: { accepted: 0, rejected: 0 }, sends: 0, deliveries: { PENDING: 0, SENT: 0, DELIVERED: 0, OPENED: 0, FAILED: 0, EXPIRED: 0 } });
    // Per minute: 60 minutes of zeros, oldest first; the text lists no minute when nothing happened.
    expect(o.perMinute.operations).toHaveLength(60);
    expect(o.perMinute.operations.every((m: { accepted: number; rejected: number }) => m.accepted + m.rejected === 0)).toBe(true);
    expect(Date.parse(o.perMinute.deliveries[59].minute) - Date.parse(o.perMinute.deliveries[0].minute)).toBe(59 * 60_000);
    const text = await sandbox.cli(['environments', 'overview', 'counted']);
    expect(text).toContain('shop-ios');
    expect(text).not.toContain('minute');
  });

  it('delete waits for the erasure; --no-wait leaves it DELETING for a serving process; a DELETING environment refuses changes', async () => {
    await sandbox.cli(['environments', 'create', '--name', 'doomed']);
    await sandbox.cli(['apps', 'create', '--environment', 'doomed', '--platform', 'ANDROID', '--name', 'doomed-android']);
    expect(await sandbox.cliJson<Env>(['environments', 'delete', 'doomed'])).toMatchObject({ name: 'doomed', status: 'DELETED' });
    const gone = await sandbox.run(['environments', 'show', 'doomed']);
    expect([gone.code, gone.stderr.trim()]).toEqual([1, 'engage: unknown_environment: no environment doomed']);

    await sandbox.cli(['environments', 'create', '--name', 'later']);
    expect(await sandbox.cliJson<Env>(['environments', 'delete', 'later', '--no-wait'])).toMatchObject({ status: 'DELETING' });
    expect(await sandbox.cliJson<Env>(['environments', 'show', 'later'])).toMatchObject({ status: 'DELETING' });
    const refused = await sandbox.run(['environments', 'update', 'later', '--display-name', 'x']);
    expect([refused.code, refused.stderr.trim()]).toEqual([1, 'engage: environment_deleting: environment later is being deleted']);
    // A serving process takes the work item and erases it.
    const server = await sandbox.serve();
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const r = await sandbox.run(['environments', 'show', 'later']);
        if (r.code === 1) break;
        if (Date.now() > deadline) throw new Error('the serving process did not erase the environment');
        await new Promise((ok) => setTimeout(ok, 250));
      }
    } finally {
      await server.stop();
    }
    // The audit trail names the environment in each event of its life.
    const events = await sandbox.cliJson<{ items: { action: string }[] }>(['audit', 'list', '--action', 'environment.deleted', '--size', '10']);
    expect(events.items.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
