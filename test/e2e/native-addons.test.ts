/**
 * The two native addons embedded in dist/engage (src/platform/native.ts): written once to a
 * per-content cache file, reused by later runs, and put in the temporary directory when the
 * preferred cache directory cannot be used.
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, listDir, type Sandbox } from '../helpers/binary';

const SQLITE_FILE = /^better_sqlite3-[0-9a-f]{16}\.node$/;
const ARGON2_FILE = /^argon2-[0-9a-f]{16}\.node$/;

// The embedded SQLite addon is loaded only on the SQLite engine: these run there.
describe.skipIf(process.env.ENGAGE_TEST_ENGINE === 'postgres')('native addons of the single executable', () => {
  let sb: Sandbox;
  let cacheHome: string;
  let tmp: string;

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-native-' });
    cacheHome = path.join(sb.dir, 'xdg-cache');
    tmp = path.join(sb.dir, 'tmp');
    await mkdir(tmp);
  });

  afterAll(async () => {
    await sb?.cleanup();
  });

  const env = () => ({ XDG_CACHE_HOME: cacheHome, TMPDIR: tmp });
  const cacheDir = () => path.join(cacheHome, 'engage', 'native');

  it('writes better-sqlite3 to a private, content-named cache file on first use', async () => {
    await sb.cliJson(['tenants', 'create', '--slug', 'acme'], { env: env() });
    const files = await listDir(cacheDir());
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(SQLITE_FILE);
    expect((await stat(cacheDir())).mode & 0o077).toBe(0); // no temp files left, nobody else may write
  });

  it('loads argon2 the same way when a password is hashed and verified', async () => {
    await sb.cliJson(['users', 'create', '--tenant', 'acme', '--email', 'alice@example.com', '--verified', '--password-stdin'], {
      env: env(),
      stdin: 'correct horse battery',
    });
    const files = await listDir(cacheDir());
    expect(files).toHaveLength(2);
    expect(files.find((f) => ARGON2_FILE.test(f))).toBeDefined();
  });

  it('reuses the cached files on later runs instead of rewriting them', async () => {
    const before = await Promise.all((await listDir(cacheDir())).map((f) => stat(path.join(cacheDir(), f))));
    await sb.cliJson(['tenants', 'list'], { env: env() });
    const after = await Promise.all((await listDir(cacheDir())).map((f) => stat(path.join(cacheDir(), f))));
    expect(after.map((s) => [s.ino, s.mtimeMs])).toEqual(before.map((s) => [s.ino, s.mtimeMs]));
  });

  it('falls back to the temporary directory when the cache directory cannot be created', async () => {
    const blocked = path.join(sb.dir, 'not-a-dir');
    await writeFile(blocked, 'a file where the cache directory would go');
    const list = await sb.cliJson<{ slug: string }[]>(['tenants', 'list'], { env: { XDG_CACHE_HOME: blocked, TMPDIR: tmp } });
    expect(list.map((t) => t.slug)).toContain('acme');
    const [fallback] = (await listDir(tmp)).filter((d) => d.startsWith('engage-native-'));
    expect(fallback).toBeDefined();
    expect(await listDir(path.join(tmp, fallback))).toEqual([expect.stringMatching(SQLITE_FILE)]);
  });

  it('refuses a cache directory other users can write to', async () => {
    const shared = path.join(sb.dir, 'shared-cache');
    await mkdir(path.join(shared, 'engage', 'native'), { recursive: true });
    await chmod(path.join(shared, 'engage', 'native'), 0o777); // mkdir's mode is cut by the umask
    await sb.cliJson(['tenants', 'list'], { env: { XDG_CACHE_HOME: shared, TMPDIR: tmp } });
    expect(await listDir(path.join(shared, 'engage', 'native'))).toEqual([]);
  });
});
