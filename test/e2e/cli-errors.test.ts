/**
 * Issue 23 point 4 on dist/engage: a failing command is one line on stderr and a documented exit
 * status (README "Exit status"): 1 when the command ran and failed, 64 (EX_USAGE) when the
 * command line itself is wrong; under --json that line is a JSON object {error, message}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunResult, type Sandbox } from '../helpers/binary';

const USAGE = 64;
const RUNTIME = 1;

/** stderr holds exactly one line, a JSON object with error and message; stdout nothing. */
function jsonError(r: RunResult): { error: string; message: string } {
  expect(r.stdout).toBe('');
  expect(r.stderr.endsWith('\n')).toBe(true);
  const lines = r.stderr.slice(0, -1).split('\n');
  expect(lines).toHaveLength(1);
  const v = JSON.parse(lines[0]) as Record<string, unknown>;
  expect(Object.keys(v)).toEqual(['error', 'message']);
  expect(typeof v.error).toBe('string');
  expect(typeof v.message).toBe('string');
  return v as { error: string; message: string };
}

describe('dist/engage errors', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-errors-' });
  });
  afterAll(async () => {
    await sb?.cleanup();
  });

  it('a command that fails under --json: {error, message} on stderr, exit 1', async () => {
    const r = await sb.run(['tenants', 'create', '--slug', 'Not A Slug', '--json']);
    expect(r.code).toBe(RUNTIME);
    expect(jsonError(r)).toEqual({ error: 'invalid_request', message: 'slug: must match ^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' });
    const missing = await sb.run(['tenants', 'show', 'no-such-tenant', '--json']);
    expect(missing.code).toBe(RUNTIME);
    expect(jsonError(missing).error).toBe('unknown_tenant');
  });

  it('without --json the same failure is one line of text, exit 1', async () => {
    const r = await sb.run(['tenants', 'create', '--slug', 'Not A Slug']);
    expect([r.code, r.stdout, r.stderr]).toEqual([RUNTIME, '', 'engage: invalid_request: slug: must match ^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$\n']);
  });

  it.each([
    ['an unknown command', ['frobnicate'], "unknown command 'frobnicate'"],
    ['an unknown option', ['tenants', 'list', '--frobnicate'], "unknown option '--frobnicate'"],
    ['a missing required option', ['tenants', 'create'], "required option '--slug <slug>' not specified"],
    ['a value outside the choices', ['tenants', 'create', '--slug', 'x', '--registration-mode', 'OPEN'], "option '--registration-mode <mode>' argument 'OPEN' is invalid"],
  ])('a usage error (%s) under --json: {error: usage_error, message} on stderr, exit 64', async (_what, args, message) => {
    const r = await sb.run([...args, '--json']);
    expect(r.code).toBe(USAGE);
    const e = jsonError(r);
    expect(e.error).toBe('usage_error');
    expect(e.message).toContain(message);
  });

  it('a usage error without --json: commander\'s message, exit 64', async () => {
    const r = await sb.run(['tenants', 'create']);
    expect([r.code, r.stdout]).toEqual([USAGE, '']);
    expect(r.stderr).toBe("error: required option '--slug <slug>' not specified\n");
    const none = await sb.run(['tenants'], { noDataDir: true });
    expect(none.code).toBe(USAGE);
    expect(none.stderr).toContain('Usage: engage tenants');
  });

  it('--help and --version exit 0', async () => {
    const help = await sb.run(['tenants', '--help'], { noDataDir: true });
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toContain('Usage: engage tenants');
    expect((await sb.run(['--version'], { noDataDir: true })).code).toBe(0);
  });
});
