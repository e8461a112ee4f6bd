/**
 * Issue 23 point 6 on the executable: `engage users set-password --password-stdin` sets a
 * user's password (by --email or --user), prints the user (JSON under --json, never the
 * password), is audited as the CLI's actor, and refuses a password outside the policy or a
 * missing or doubled target in one line with a non-zero exit, changing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../helpers/binary';

const NEW_PASSWORD = 'a fresh operator-chosen secret';

describe('engage users set-password', () => {
  let sb: Sandbox;
  let userId: string;
  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-setpw-' });
    await sb.cli(['tenants', 'create', '--slug', 'acme']);
    userId = (await sb.cliJson<{ id: string }>(['users', 'create', '--tenant', 'acme', '--email', 'ada@acme.test', '--verified', '--password-stdin'], { stdin: 'the first secret\n' })).id;
  }, 60_000);
  afterAll(async () => {
    await sb?.cleanup();
  });

  it('sets the password by --email under --json, prints the user without the password, and audits it', async () => {
    const r = await sb.run(['users', 'set-password', '--tenant', 'acme', '--email', 'ada@acme.test', '--password-stdin', '--json'], { stdin: `${NEW_PASSWORD}\n` });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const user = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(user).toMatchObject({ id: userId, email: 'ada@acme.test', status: 'ACTIVE' });
    expect(r.stdout).not.toContain(NEW_PASSWORD);
    expect(r.stdout).not.toContain('$argon2');

    // By id too.
    expect((await sb.cliJson<{ id: string }>(['users', 'set-password', '--tenant', 'acme', '--user', userId, '--password-stdin'], { stdin: NEW_PASSWORD })).id).toBe(userId);

    const audit = await sb.cliJson<{ items: { action: string; targetId: string; actorSubject: string; details: unknown }[] }>(['audit', 'list', '--action', 'user.password_set']);
    expect(audit.items).toHaveLength(2);
    for (const e of audit.items) expect(e).toMatchObject({ action: 'user.password_set', targetId: userId, actorSubject: expect.stringMatching(/^os:/), details: {} });
    expect(JSON.stringify(audit)).not.toContain(NEW_PASSWORD);
  }, 60_000);

  it('refuses a short password, an unknown user, and neither or both of --user and --email, in one line', async () => {
    const cases: [string[], string, RegExp][] = [
      [['--email', 'ada@acme.test'], 'short\n', /8 characters/],
      [['--email', 'nobody@acme.test'], `${NEW_PASSWORD}\n`, /nobody@acme\.test/],
      [[], `${NEW_PASSWORD}\n`, /exactly one of --user or --email/],
      [['--user', userId, '--email', 'ada@acme.test'], `${NEW_PASSWORD}\n`, /exactly one of --user or --email/],
    ];
    for (const [args, stdin, message] of cases) {
      const r = await sb.run(['users', 'set-password', '--tenant', 'acme', ...args, '--password-stdin'], { stdin });
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    const audit = await sb.cliJson<{ items: unknown[] }>(['audit', 'list', '--action', 'user.password_set']);
    expect(audit.items).toHaveLength(2);
  }, 60_000);
});
