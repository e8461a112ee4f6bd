import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initialise, withServices } from '../../cmd/cli';
import { migrate } from '../../cmd/commands/migrate';
import { TEST_ENGINE } from '../../test/helpers/harness';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/pg-cluster';
import { openPostgres } from '../platform/store/postgres';
import { SYSTEM_ACTOR } from '../identity/audit';

/**
 * Issue 23 point 2: a CLI command run in the wrong folder silently made a database, a master key
 * and a control tenant there. Only `serve`, `migrate` and `init` create; every other command
 * (they all go through withServices) fails naming what it looked for and leaves nothing behind.
 */
describe('the data directory: only init, migrate and serve create it', () => {
  let root: string;
  let dataDir: string;
  let pg: TestDatabase | undefined;
  const opts = () => ({ dataDir, databaseUrl: pg?.url, publicUrl: 'http://engage.test', logLevel: 'silent' });
  const tablesIn = async (url: string) => {
    const c = openPostgres(url, { max: 1 });
    try {
      return (await c.query<{ n: string }>("SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = 'public'")).rows[0].n;
    } finally {
      await c.end();
    }
  };

  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'engage-datadir-'));
    dataDir = path.join(root, '.engage');
    pg = TEST_ENGINE === 'postgres' ? await createTestDatabase() : undefined;
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await pg?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a command in an empty folder fails naming the directory (or database) it looked for, and creates nothing', async () => {
    const ran = vi.fn();
    const failed = withServices(opts(), async () => ran());
    if (pg) await expect(failed).rejects.toThrow(/^no engage database at postgres:\/\/[^ ]*:\*\*\*@[^ ]+ \(run engage init, or pass --database-url\)$/);
    else await expect(failed).rejects.toThrow(`no engage data directory at ${dataDir} (run engage init, or pass --data-dir)`);
    expect(ran).not.toHaveBeenCalled();
    expect(readdirSync(root)).toEqual([]);
    if (pg) expect(await tablesIn(pg.url)).toBe('0');
  });

  it('init creates the database, master key and control tenant; a second init says so and changes nothing; then commands work', async () => {
    const first = await initialise(opts());
    expect(first).toMatchObject({ created: true, dataDir, controlIssuer: 'http://engage.test/t/control' });
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'engage.db'))).toBe(!pg);
    const second = await initialise(opts());
    expect(second).toMatchObject({ created: false, controlIssuer: first.controlIssuer });
    const slugs = await withServices(opts(), async ({ services }) => {
      await services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
      return (await services.tenants.list(0, 10)).items.map((t) => t.slug).sort();
    });
    expect(slugs).toEqual(['acme', 'control']);
  });

  it('after migrate alone the database exists but is not initialised: commands say to run init', async () => {
    await migrate(opts());
    const where = pg ? /postgres:\/\/[^ ]*:\*\*\*@/ : path.join(dataDir, 'engage.db');
    await expect(withServices(opts(), async () => {})).rejects.toThrow(/is not initialised \(run engage init\)$/);
    await expect(withServices(opts(), async () => {})).rejects.toThrow(where);
    await initialise(opts());
    await expect(withServices(opts(), async () => 'ok')).resolves.toBe('ok');
  });

  it('with ENGAGE_MASTER_KEY no key file is written; without it a missing key file is named, never made by a command', async () => {
    vi.stubEnv('ENGAGE_MASTER_KEY', randomBytes(32).toString('base64'));
    await initialise(opts());
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);
    await expect(withServices(opts(), async () => 'ok')).resolves.toBe('ok');
    vi.unstubAllEnvs();
    await expect(withServices(opts(), async () => {})).rejects.toThrow(`no master key file at ${path.join(dataDir, 'master.key')} (set ENGAGE_MASTER_KEY, or pass --master-key-file)`);
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);
  });
});
