/**
 * `--database-url` / ENGAGE_DATABASE_URL on the built executable: a password in the URL never
 * reaches the output, whether the server cannot be reached, refuses the password, or serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, freePort, type Sandbox } from '../helpers/binary';

const SECRET = 'Sup3r-s3cret-pw';
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-dburl-' });
});
afterAll(async () => sb?.cleanup());

describe('the database URL password', () => {
  it('is not printed when the database cannot be reached (flag or environment), by any command', async () => {
    const url = `postgres://engage:${SECRET}@127.0.0.1:${await freePort()}/engage`;
    for (const [args, env] of [
      [['tenants', 'list', '--database-url', url], {}],
      [['migrate'], { ENGAGE_DATABASE_URL: url }],
      [['serve', '--port', '0'], { ENGAGE_DATABASE_URL: url }],
    ] as const) {
      const r = await sb.run([...args], { env, timeoutMs: 30_000 });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(r.stderr).toContain('127.0.0.1');
    }
  });

  it('is not printed for a URL that is not a database URL', async () => {
    const r = await sb.run(['tenants', 'list', '--database-url', `mysql://root:${SECRET}@db/engage`]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain(SECRET);
  });

  // The sandbox has a database of its own when the suite runs on PostgreSQL.
  it.skipIf(process.env.ENGAGE_TEST_ENGINE !== 'postgres')('is not printed by a server that runs on it, nor by the CLI', async () => {
    const u = new URL(sb.database!);
    const cli = await sb.run(['tenants', 'create', '--slug', 'acme', '--json']);
    expect(cli.code).toBe(0);
    expect(cli.stdout + cli.stderr).not.toContain(u.password);
    const server = await sb.serve();
    await server.stop();
    expect(server.output()).toContain(`"database":"postgres://${u.username}:***@${u.host}${u.pathname}"`);
    expect(server.output()).not.toContain(u.password);
  });
});
