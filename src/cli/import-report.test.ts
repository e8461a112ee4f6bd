import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { configureUsageErrors, initialise, reportParseFailure, withServices } from '../../cmd/cli';
import { buildProgram } from '../../cmd/program';
import { TEST_ENGINE } from '../../test/helpers/harness';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/pg-cluster';
import { SYSTEM_ACTOR } from '../identity/audit';

/**
 * Issue 23 point 10: a second `engage users import` of the same file wrote its report over the
 * first's (`<file>.errors.ndjson`). The default report now takes the next free
 * `<file>.errors.N.ndjson` and the summary names it; a `--report` the operator names is written as named.
 */
describe('engage users import: the report of one run survives the next', () => {
  let root: string;
  let pg: TestDatabase | undefined;
  let file: string;
  const common = () => ['--data-dir', path.join(root, '.engage'), '--public-url', 'http://engage.test', '--log-level', 'silent', ...(pg ? ['--database-url', pg.url] : [])];
  const opts = () => ({ dataDir: path.join(root, '.engage'), databaseUrl: pg?.url, publicUrl: 'http://engage.test', logLevel: 'silent' });

  /** `engage users import <file> --json …` in-process: its exit status and summary. */
  async function importing(input: string, ...args: string[]): Promise<{ code: number; summary: { failed: number; report: string | null } }> {
    const program = buildProgram('0.0.0-test');
    configureUsageErrors(program, true);
    let stdout = '';
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    process.exitCode = 0;
    try {
      await program.parseAsync(['node', 'engage', 'users', 'import', input, '--tenant', 'acme', '--json', ...args, ...common()]).catch((e: unknown) => reportParseFailure(e, true));
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const code = Number(process.exitCode ?? 0);
    process.exitCode = 0;
    return { code, summary: JSON.parse(stdout) as { failed: number; report: string | null } };
  }
  const lines = (p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { line: number; errorCode: string }).errorCode);

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'engage-report-'));
    pg = TEST_ENGINE === 'postgres' ? await createTestDatabase() : undefined;
    await initialise(opts());
    await withServices(opts(), async ({ services }) => void (await services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)));
    file = path.join(root, 'users.ndjson');
    writeFileSync(file, [JSON.stringify({ externalId: 'a', email: 'a@acme.test', emailVerified: true, active: true }), '{"externalId":'].join('\n') + '\n');
  }, 60_000);
  afterAll(async () => {
    await pg?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('the first run writes <file>.errors.ndjson; the next ones <file>.errors.1.ndjson, .2, leaving the earlier ones as they were', async () => {
    const first = await importing(file);
    expect(first).toEqual({ code: 2, summary: expect.objectContaining({ failed: 1, report: `${file}.errors.ndjson` }) });
    expect(lines(`${file}.errors.ndjson`)).toEqual(['malformed_record']);
    const before = readFileSync(`${file}.errors.ndjson`, 'utf8');

    // The second file's bad record differs, so a clobbered first report would show it.
    writeFileSync(file, [JSON.stringify({ externalId: 'a', email: 'a@acme.test', emailVerified: true, active: true }), 'not json', '{"externalId":'].join('\n') + '\n');
    const second = await importing(file);
    expect(second).toEqual({ code: 2, summary: expect.objectContaining({ failed: 2, report: `${file}.errors.1.ndjson` }) });
    expect(readFileSync(`${file}.errors.ndjson`, 'utf8')).toBe(before);
    expect(lines(`${file}.errors.1.ndjson`)).toEqual(['malformed_record', 'malformed_record']);

    const third = await importing(file);
    expect(third.summary.report).toBe(`${file}.errors.2.ndjson`);
    expect(readFileSync(`${file}.errors.ndjson`, 'utf8')).toBe(before);
  });

  it('a --report the operator names is written as named, replacing what was there', async () => {
    const named = path.join(root, 'mine.ndjson');
    writeFileSync(named, 'old\n');
    const r = await importing(file, '--report', named);
    expect(r.summary.report).toBe(named);
    expect(lines(named)).toEqual(['malformed_record', 'malformed_record']);
  });

  it('a run with no failed record writes no report and takes no name', async () => {
    const clean = path.join(root, 'clean.ndjson');
    writeFileSync(clean, JSON.stringify({ externalId: 'b', email: 'b@acme.test', emailVerified: true, active: true }) + '\n');
    expect(await importing(clean)).toEqual({ code: 0, summary: expect.objectContaining({ failed: 0, report: null }) });
    expect(existsSync(`${clean}.errors.ndjson`)).toBe(false);
  });
});
