import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../src/engage/webhooks/signing';
import { createSandbox, type Sandbox } from '../helpers/binary';

/**
 * `engage environments webhook-signing show|rotate` from the built executable (issue 28): the
 * secret is printed by the rotation only, once; show and the audit trail never print it; the
 * allow-list setting is checked when the process starts.
 */
let sandbox: Sandbox;
type Info = { id: string; current: boolean; createdAt: string; retiresAt: string | null };
type Rotated = { environmentId: string; id: string; secret: string; createdAt: string; secrets: Info[] };

beforeAll(async () => {
  sandbox = await createSandbox({ prefix: 'engage-webhook-signing-' });
  await sandbox.cli(['environments', 'create', '--name', 'prod']);
}, 60_000);
afterAll(async () => {
  await sandbox?.cleanup();
});

describe('engage environments webhook-signing', () => {
  it('show lists nothing at first; rotate prints a whsec_ secret once (a receiver verifies with it); --overlap 0 retires the older at once; show never prints a secret', async () => {
    expect(await sandbox.cliJson<{ secrets: Info[] }>(['environments', 'webhook-signing', 'show', 'prod'])).toMatchObject({ secrets: [] });
    const text = await sandbox.cli(['environments', 'webhook-signing', 'rotate', 'prod', '--overlap', '30m']);
    const secret = /shown once[^:]*: (whsec_\S+)/.exec(text)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"a":1}';
    expect(() => new Webhook(secret!).verify(body, webhookHeaders([secret!], 'm1', Math.floor(Date.now() / 1000), body))).not.toThrow();

    const second = await sandbox.cliJson<Rotated>(['environments', 'webhook-signing', 'rotate', 'prod']);
    expect(second.secret).not.toBe(secret);
    expect(second.secrets.map((s) => s.current)).toEqual([true, false]);
    const retires = Date.parse(second.secrets[1].retiresAt!) - Date.parse(second.createdAt);
    expect(retires).toBe(24 * 3600 * 1000);

    const third = await sandbox.cliJson<Rotated>(['environments', 'webhook-signing', 'rotate', 'prod', '--overlap', '0']);
    expect(third.secrets).toHaveLength(1);
    for (const out of [await sandbox.cli(['environments', 'webhook-signing', 'show', 'prod']), await sandbox.cli(['environments', 'webhook-signing', 'show', 'prod', '--json']), await sandbox.cli(['audit', 'list', '--environment', 'prod', '--json'])]) {
      expect(out).toContain(third.id);
      for (const s of [secret!, second.secret, third.secret]) expect(out).not.toContain(s.slice(6, 30));
    }
  });

  it('refusals: a bad overlap, an unknown environment, a bad ENGAGE_WEBHOOK_ALLOW_PRIVATE: one line on stderr, exit 1', async () => {
    const overlap = await sandbox.run(['environments', 'webhook-signing', 'rotate', 'prod', '--overlap', '8d']);
    expect([overlap.code, overlap.stderr.trim()]).toEqual([1, expect.stringContaining('overlapSeconds')]);
    const unknown = await sandbox.run(['environments', 'webhook-signing', 'show', 'nowhere']);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'engage: unknown_environment: no environment nowhere']);
    const setting = await sandbox.run(['environments', 'webhook-signing', 'show', 'prod'], { env: { ENGAGE_WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/40' } });
    expect(setting.code).not.toBe(0);
    expect(setting.stderr).toContain('webhookAllowPrivate (ENGAGE_WEBHOOK_ALLOW_PRIVATE)');
  });
});
