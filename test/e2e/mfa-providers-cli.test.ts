/**
 * `engage users mfa show|reset` and `engage providers add|list|remove` on dist/engage, as an
 * operator runs them (issue 10): --json and table output, one-line errors, and never a secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withServices } from '../../cmd/cli';
import { stepAt, totpCode } from '../../src/identity/mfa/totp';
import { createSandbox, type RunResult, type Sandbox } from '../helpers/binary';

interface MfaJson { email: string; enrolled: boolean; enrolledAt: string | null; pending: boolean; recoveryCodesLeft: number }
interface ProviderJson { name: string; issuer: string; audiences: string[]; createdAt: string }

describe('dist/engage users mfa and providers', () => {
  let sb: Sandbox;
  const T = ['--tenant', 'acme'];
  const json = async <T>(args: string[]): Promise<T> => {
    const r = await sb.run([...args, '--json']);
    expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(r.stdout) as T;
  };
  const fails = async (args: string[], message: RegExp): Promise<RunResult> => {
    const r = await sb.run(args);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^engage: [^\n]+\n$/);
    expect(r.stderr).toMatch(message);
    return r;
  };

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-mfa-cli-' });
    await sb.cli(['tenants', 'create', '--slug', 'acme']);
    await sb.cli(['users', 'create', ...T, '--email', 'ada@acme.test', '--verified']);
  }, 120_000);
  afterAll(() => sb?.cleanup());

  it('shows, then resets, a user\'s second factor without printing a secret', async () => {
    expect(await json<MfaJson>(['users', 'mfa', 'show', ...T, '--email', 'ada@acme.test'])).toEqual({
      email: 'ada@acme.test', enrolled: false, enrolledAt: null, pending: false, recoveryCodesLeft: 0,
    });
    // The user enrols (what the account page does), through the same services on the same database.
    const opts = { dataDir: sb.dataDir, databaseUrl: sb.env.ENGAGE_DATABASE_URL, publicUrl: sb.publicUrl, logLevel: 'silent' };
    const { secret, codes } = await withServices(opts, async ({ services }) => {
      const tenantId = (await services.tenants.get('acme')).id;
      const user = (await services.users.findByEmail(tenantId, 'ada@acme.test'))!;
      const e = await services.mfa.beginEnrolment(tenantId, user.id, 'acme', user.email);
      const recovery = await services.mfa.confirmEnrolment(tenantId, user.id, totpCode(e.secret, stepAt(Date.now())));
      return { secret: e.secret, codes: recovery };
    });
    const shown = await json<MfaJson>(['users', 'mfa', 'show', ...T, '--email', 'ADA@acme.test']);
    expect(shown).toMatchObject({ email: 'ada@acme.test', enrolled: true, pending: false, recoveryCodesLeft: 10 });
    expect(Date.parse(shown.enrolledAt!)).toBeGreaterThan(Date.now() - 600_000);
    const table = await sb.cli(['users', 'mfa', 'show', ...T, '--email', 'ada@acme.test']);
    expect(table.split('\n')[0]).toMatch(/^email\s+enrolled\s+enrolledAt\s+pending\s+recoveryCodesLeft$/);
    expect(table).toMatch(/ada@acme\.test\s+true\s+\S+\s+false\s+10/);
    for (const s of [secret, ...codes]) expect(table + JSON.stringify(shown)).not.toContain(s);

    expect(await json(['users', 'mfa', 'reset', ...T, '--email', 'ada@acme.test'])).toEqual({ email: 'ada@acme.test', removed: true });
    expect(await json<MfaJson>(['users', 'mfa', 'show', ...T, '--email', 'ada@acme.test'])).toMatchObject({ enrolled: false, recoveryCodesLeft: 0 });
    expect(await json(['users', 'mfa', 'reset', ...T, '--email', 'ada@acme.test'])).toEqual({ email: 'ada@acme.test', removed: false });
    await fails(['users', 'mfa', 'show', ...T, '--email', 'nobody@acme.test'], /nobody@acme\.test/);
    await fails(['users', 'mfa', 'reset', '--tenant', 'nope', '--email', 'ada@acme.test'], /nope/);
  });

  it('adds, lists and removes identity providers per tenant', async () => {
    const added = await json<ProviderJson>(['providers', 'add', ...T, '--name', 'google', '--issuer', 'https://accounts.google.com', '--audience', 'web-id', '--audience', 'ios-id']);
    expect(added).toMatchObject({ name: 'google', issuer: 'https://accounts.google.com', audiences: ['web-id', 'ios-id'] });
    await json(['providers', 'add', ...T, '--name', 'apple', '--issuer', 'https://appleid.apple.com', '--audience', 'com.acme.app']);
    expect((await json<ProviderJson[]>(['providers', 'list', ...T])).map((p) => [p.name, p.audiences])).toEqual([['apple', ['com.acme.app']], ['google', ['web-id', 'ios-id']]]);
    const table = await sb.cli(['providers', 'list', ...T]);
    expect(table.split('\n')[0]).toMatch(/^name\s+issuer\s+audiences\s+createdAt$/);
    await fails(['providers', 'add', ...T, '--name', 'google', '--issuer', 'https://accounts.google.com', '--audience', 'x'], /google/);
    await fails(['providers', 'add', ...T, '--name', 'bad', '--issuer', 'not a url', '--audience', 'x'], /issuer/);
    // commander itself refuses a missing required option: a usage error, exit 64 (README "Exit status").
    const missing = await sb.run(['providers', 'add', ...T, '--name', 'bad', '--issuer', 'https://idp.example.com']);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toMatch(/--audience/);
    expect(await json(['providers', 'remove', ...T, '--name', 'apple'])).toEqual({ name: 'apple', removed: true });
    await fails(['providers', 'remove', ...T, '--name', 'apple'], /apple/);
    expect((await json<ProviderJson[]>(['providers', 'list', ...T])).map((p) => p.name)).toEqual(['google']);
  });
});
