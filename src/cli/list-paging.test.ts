import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configureUsageErrors, EXIT, initialise, reportParseFailure, withServices } from '../../cmd/cli';
import { buildProgram } from '../../cmd/program';
import { cliActor } from '../identity/audit';
import { TEST_ENGINE } from '../../test/helpers/harness';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/pg-cluster';
import { SYSTEM_ACTOR } from '../identity/audit';

/**
 * Issue 23 point 10: `engage users list` and `engage deliveries list` are paged (`--page`,
 * `--size`, the management API's bounds) and filtered (`--email`, `--state`); `--json` prints the
 * page's items as an array, as before paging. Run in-process through the commands themselves.
 */
describe('paged CLI lists', () => {
  let root: string;
  let pg: TestDatabase | undefined;
  const common = () => ['--data-dir', path.join(root, '.engage'), '--public-url', 'http://engage.test', '--log-level', 'silent', ...(pg ? ['--database-url', pg.url] : [])];
  const opts = () => ({ dataDir: path.join(root, '.engage'), databaseUrl: pg?.url, publicUrl: 'http://engage.test', logLevel: 'silent' });

  /** Runs `engage <args>` in-process: stdout, stderr and the exit status it would end with. */
  async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const program = buildProgram('0.0.0-test');
    const json = args.includes('--json');
    configureUsageErrors(program, json);
    let stdout = '';
    let stderr = '';
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
    process.exitCode = 0;
    try {
      await program.parseAsync(['node', 'engage', ...args, ...common()]).catch((e: unknown) => reportParseFailure(e, json));
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const code = Number(process.exitCode ?? 0);
    process.exitCode = 0;
    return { code, stdout, stderr };
  }
  const listed = async (args: string[]) => {
    const r = await run(['users', 'list', '--tenant', 'acme', '--json', ...args]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    return (JSON.parse(r.stdout) as { email: string }[]).map((u) => u.email);
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'engage-paging-'));
    pg = TEST_ENGINE === 'postgres' ? await createTestDatabase() : undefined;
    await initialise(opts());
    await withServices(opts(), async ({ services }) => {
      const t = await services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
      // Oldest first is created_at then id: a few milliseconds apart, the order is the creation's.
      for (const email of ['ada@acme.test', 'bob@acme.test', 'cy@other.test', 'd_n@acme.test', 'dxn@acme.test']) {
        await services.users.create(t.id, { email, emailVerified: false }, cliActor());
        await new Promise((r) => setTimeout(r, 5));
      }
    });
  }, 60_000);
  afterAll(async () => {
    await pg?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('users list: --json is still an array of every user (default page 0, size 50)', async () => {
    expect(await listed([])).toEqual(['ada@acme.test', 'bob@acme.test', 'cy@other.test', 'd_n@acme.test', 'dxn@acme.test']);
  });

  it('users list --page/--size walk the users oldest first; the table says when more exist', async () => {
    expect(await listed(['--size', '2'])).toEqual(['ada@acme.test', 'bob@acme.test']);
    expect(await listed(['--size', '2', '--page', '1'])).toEqual(['cy@other.test', 'd_n@acme.test']);
    expect(await listed(['--size', '2', '--page', '2'])).toEqual(['dxn@acme.test']);
    expect(await listed(['--size', '2', '--page', '3'])).toEqual([]);
    const table = await run(['users', 'list', '--tenant', 'acme', '--size', '2', '--page', '1']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('cy@other.test');
    expect(table.stderr).toBe('more: --page 2\n');
    expect((await run(['users', 'list', '--tenant', 'acme', '--size', '2', '--page', '2'])).stderr).toBe('');
  });

  it('users list --email matches a substring, case-insensitively; _ and % match themselves', async () => {
    expect(await listed(['--email', '@ACME.test'])).toEqual(['ada@acme.test', 'bob@acme.test', 'd_n@acme.test', 'dxn@acme.test']);
    expect(await listed(['--email', 'bob@acme.test'])).toEqual(['bob@acme.test']);
    expect(await listed(['--email', 'd_n'])).toEqual(['d_n@acme.test']);
    expect(await listed(['--email', '%'])).toEqual([]);
    expect(await listed(['--email', '@acme.test', '--size', '3', '--page', '1'])).toEqual(['dxn@acme.test']);
  });

  it.each([
    [['--size', '0'], '--size must be an integer from 1 to 200'],
    [['--size', '201'], '--size must be an integer from 1 to 200'],
    [['--page', '-1'], '--page must be an integer from 0 to 1000000'],
    [['--page', '1.5'], '--page must be an integer from 0 to 1000000'],
  ])('users list %j is a usage error in one line', async (args, message) => {
    const r = await run(['users', 'list', '--tenant', 'acme', '--json', ...args]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toEqual({ error: 'usage_error', message: expect.stringContaining(message) });
  });

  it('deliveries list --state takes only the delivery states; a scope is still required', async () => {
    const bad = await run(['deliveries', 'list', '--send', 'x', '--state', 'LOST', '--json']);
    expect(bad.code).toBe(EXIT.usage);
    expect(JSON.parse(bad.stderr)).toEqual({ error: 'usage_error', message: expect.stringContaining('PENDING, SENT, DELIVERED, OPENED, FAILED, EXPIRED') });
    const none = await run(['deliveries', 'list', '--state', 'FAILED']);
    expect([none.code, none.stderr]).toEqual([EXIT.failed, 'engage: invalid_request: give --send or --installation\n']);
    const unknown = await run(['deliveries', 'list', '--send', 'no-such-send', '--state', 'FAILED', '--json']);
    expect([unknown.code, JSON.parse(unknown.stdout)]).toEqual([0, []]);
  });
});
