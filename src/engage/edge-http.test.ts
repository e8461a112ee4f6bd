import { serve, type ServerType } from '@hono/node-server';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/helpers/harness';
import { createApp } from '../app';
import { createLogger } from '../platform/logger';
import { bootstrap, op, setupEnvironment, type Session } from '../../test/fixtures/engage';

/**
 * What only a real socket shows: repeated header lines, the head of a 204, a body cut off by
 * the client, a body refused before it is read. The app is the real one, served by the Node
 * adapter that `engage serve` uses, on a loopback port.
 */
let h: Harness;
let server: ServerType;
let port: number;
let s: Session;
let lines: string[];

beforeEach(async () => {
  h = await createHarness({ maxRequestBytes: 64 * 1024 });
  s = await bootstrap(h, (await setupEnvironment(h)).app.appKey);
  lines = [];
  const logger = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) });
  const app = createApp({ config: h.config, clock: h.clock, logger, services: h.services });
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise((r) => server.close(r));
  await h.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (and `body` chunks) on a fresh socket; resolves with the parsed answer, or null when none came. */
function exchange(head: string, body: (string | Buffer)[] = [], opts: { closeAfterBody?: boolean } = {}): Promise<RawAnswer | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const finish = () => {
      const at = data.indexOf('\r\n\r\n');
      if (at < 0) return resolve(null);
      const [statusLine, ...rest] = data.slice(0, at).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of rest) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: data.slice(at + 4) });
    };
    socket.on('data', (d) => {
      data += d.toString();
      // One answer is all we ask for: stop at the end of its body.
      const at = data.indexOf('\r\n\r\n');
      const len = /content-length: *(\d+)/i.exec(data.slice(0, at))?.[1];
      if (at >= 0 && (len === undefined || data.length - at - 4 >= Number(len))) {
        socket.destroy();
        finish();
      }
    });
    // No answer within 5 s is no answer (a server that waits for a body that never ends).
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('error', () => finish());
    socket.on('close', () => clearTimeout(timer));
    socket.on('close', () => finish());
    socket.write(head);
    for (const chunk of body) socket.write(chunk);
    if (opts.closeAfterBody) setTimeout(() => socket.destroy(), 50);
  });
}

const request = (method: string, path: string, headers: string[], contentLength?: number) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.map((x) => x + '\r\n').join('')}${contentLength === undefined ? '' : `Content-Length: ${contentLength}\r\n`}\r\n`;

const countOps = async () => (await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM operations'))!.n;
const errorLines = () => lines.filter((l) => JSON.parse(l).level === 'error');

describe('the mobile edge on a real socket', () => {
  it('two Authorization lines are a 401, even when the first is valid', async () => {
    const alone = await exchange(request('GET', '/v1/sdk/installation', [`Authorization: Bearer ${s.credential}`]));
    expect(alone?.status).toBe(200);
    for (const pair of [
      [`Authorization: Bearer ${s.credential}`, 'Authorization: Bearer svc_inst_someone_else'],
      [`Authorization: Bearer ${s.credential}`, `authorization: Bearer ${s.credential}`],
    ]) {
      const res = await exchange(request('GET', '/v1/sdk/installation', pair));
      expect(res?.status).toBe(401);
      expect(res?.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res!.body)).toMatchObject({ code: 'unauthorized' });
    }
    const body = JSON.stringify({ batchId: randomUUID(), operations: [op('EVENT_TRACKED', { name: 'ab', properties: {} })] });
    const batch = await exchange(
      request('POST', '/v1/sdk/operations:batch', [`Authorization: Bearer ${s.credential}`, 'Authorization: Bearer x', 'Content-Type: application/json'], body.length),
      [body],
    );
    expect(batch?.status).toBe(401);
    expect(await countOps()).toBe(0);
  });

  it('204 answers carry no Content-Type (and keep X-Request-Id)', async () => {
    const res = await exchange(request('PUT', `/v1/sdk/privacy/revocations/${randomUUID()}`, [`Authorization: Bearer ${s.revocationCredential}`]));
    expect(res?.status).toBe(204);
    expect(res?.headers['content-type']).toBeUndefined();
    expect(res?.headers['x-request-id']).toBeDefined();
    expect(res?.body).toBe('');
    const installations = await h.sql.get('SELECT COUNT(*) AS n FROM installations');
    expect(installations).toEqual({ n: 0 });
  });

  it('a client that closes mid-upload is no error and no 5xx: status 499 in its access line, nothing stored', async () => {
    const head = request('POST', '/v1/sdk/operations:batch', [`Authorization: Bearer ${s.credential}`, 'Content-Type: application/json'], 5000);
    const res = await exchange(head, ['{"batchId":"'], { closeAfterBody: true });
    expect(res).toBeNull();
    // The server learns of the close from its socket: wait for the access line (a loaded machine
    // may take more than a few milliseconds), then for anything logged after it.
    const logged = () => lines.map((l) => JSON.parse(l) as { status?: number; route?: string }).filter((l) => l.route === '/v1/sdk/operations:batch');
    for (const t0 = Date.now(); logged().length === 0 && Date.now() - t0 < 5000; ) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    expect(errorLines()).toEqual([]);
    expect(logged().map((l) => l.status)).toEqual([499]);
    expect(await countOps()).toBe(0);
  });

  it('a declared Content-Length over the cap is answered 413 at once, before any body is sent', async () => {
    const head = request('POST', '/v1/sdk/operations:batch', [`Authorization: Bearer ${s.credential}`, 'Content-Type: application/json'], 10 * 1024 * 1024);
    const res = await exchange(head);
    expect(res?.status).toBe(413);
    expect(res?.headers['content-type']).toBe('application/problem+json');
    expect(res?.headers.connection).toBe('close');
    expect(JSON.parse(res!.body)).toEqual({ code: 'payload_too_large', message: 'body: must be at most 65536 bytes (maxRequestBytes)' });
    expect(errorLines()).toEqual([]);
  });

  it('a chunked body that grows past the cap is answered 413 without waiting for its end', async () => {
    const head = request('POST', '/v1/sdk/operations:batch', [`Authorization: Bearer ${s.credential}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked']);
    const chunk = 'x'.repeat(32 * 1024);
    const chunked = (t: string) => `${t.length.toString(16)}\r\n${t}\r\n`;
    // 96 KiB sent of a body that never ends: the answer must come anyway.
    const res = await exchange(head, [chunked(chunk), chunked(chunk), chunked(chunk)]);
    expect(res?.status).toBe(413);
    expect(JSON.parse(res!.body)).toMatchObject({ code: 'payload_too_large' });
    expect(await countOps()).toBe(0);
  });
});
