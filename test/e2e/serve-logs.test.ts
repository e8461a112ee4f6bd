/**
 * What `engage serve` writes, on the built executable (issue 23 point 5): one JSON access line
 * per request without the query, none with --no-access-log, a port clash as one JSON line and a
 * non-zero exit (with --workers too), and the "stopped" line after a drained shutdown. Also what
 * a client still sending a refused body reads (the connection closes in stages).
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, freePort, type Sandbox } from '../helpers/binary';
import { rawUpload } from '../helpers/raw-upload';

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ prefix: 'engage-logs-' });
  await sb.cli(['tenants', 'create', '--slug', 'acme']);
});
afterAll(async () => sb?.cleanup());

const records = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const SECRET = 'state-secret-4b1d';

async function occupied(): Promise<{ port: number; server: Server }> {
  const port = await freePort();
  const server = createServer();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { port, server };
}

describe('engage serve logs', () => {
  it('one JSON access line per request, by route, without the query; "stopped" after the drain', async () => {
    const server = await sb.serve();
    const res = await fetch(`${server.url}/t/acme/oauth2/authorize?client_id=nobody&state=${SECRET}&code_challenge=${SECRET}`);
    const requestId = res.headers.get('x-request-id');
    const stopped = await server.stop(15_000);
    expect(stopped).toMatchObject({ code: 0, forced: false });
    // Every line is JSON (a parse failure fails the test).
    const lines = records(server.output());
    const access = lines.filter((l) => l.msg === 'request');
    expect(access).toEqual([expect.objectContaining({ level: 'info', method: 'GET', route: '/t/:tenantSegment/oauth2/authorize', status: res.status, requestId, ms: expect.any(Number) })]);
    expect(server.output()).not.toContain(SECRET);
    // The last line says the server stopped, after the shutdown it announced.
    expect(lines.map((l) => l.msg).slice(-2)).toEqual(['shutting down', 'stopped']);
  });

  it('a body over --max-request-bytes: the client still sending it reads the 413 Problem, not a reset', async () => {
    await sb.cli(['environments', 'create', '--name', 'big']);
    const { appKey } = await sb.cliJson<{ appKey: string }>(['apps', 'create', '--environment', 'big', '--platform', 'IOS', '--name', 'ios']);
    const server = await sb.serve({ args: ['--max-request-bytes', String(1024 * 1024)] });
    try {
      const port = Number(new URL(server.url).port);
      for (let i = 0; i < 2; i++) {
        const { answer, sendError } = await rawUpload(port, '/v1/sdk/installations', 9 * 1024 * 1024, { 'x-service-app-key': appKey });
        expect(answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(answer).toContain('"code":"payload_too_large"');
        expect(sendError).toBeUndefined();
      }
    } finally {
      await server.stop(15_000);
    }
  });

  it('--no-access-log: no access line', async () => {
    const server = await sb.serve({ args: ['--no-access-log'] });
    expect((await fetch(`${server.url}/t/acme/.well-known/openid-configuration`)).status).toBe(200);
    await server.stop(15_000);
    expect(records(server.output()).filter((l) => l.msg === 'request')).toEqual([]);
  });

  it('with --workers, every worker logs "stopped" after its drain, then the primary', async () => {
    const server = await sb.serve({ args: ['--workers', '2'] });
    const deadline = Date.now() + 15_000;
    while ((server.output().match(/engage listening/g) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await server.stop(20_000)).toMatchObject({ code: 0, forced: false });
    const msgs = records(server.output()).map((l) => l.msg);
    expect(msgs.filter((m) => m === 'stopped')).toHaveLength(2);
    expect(msgs.at(-1)).toBe('all workers stopped');
  });

  it.each([[[]], [['--workers', '2']]])('a port already taken (args %j): one JSON error line, exit 1', async (args) => {
    const { port, server } = await occupied();
    try {
      const r = await sb.run(['serve', '--host', '127.0.0.1', '--port', String(port), ...args], { timeoutMs: 30_000 });
      expect(r.code).toBe(1);
      expect(records(r.stdout + r.stderr)).toEqual([
        expect.objectContaining({ level: 'error', msg: `cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens on it)`, errorCode: 'EADDRINUSE', address: `127.0.0.1:${port}` }),
      ]);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      server.close();
    }
  });
});
