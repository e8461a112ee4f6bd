import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientError } from './client-error';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends raw bytes and reads the whole answer (the server closes the connection). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (c) => (out += c.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.write(request);
  });
}

const parse = (answer: string) => {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: head.split(' ')[1], type: /content-type: ([^\r]+)/i.exec(head)?.[1], body: JSON.parse(body) as unknown };
};

describe("requests Node's parser refuses before any route: an error in the API's own form", () => {
  const big = `Authorization: Bearer svc_key_${'a'.repeat(20_000)}\r\n`;

  it('431 problem+json for a mobile edge or server messaging path, never echoing the header', async () => {
    for (const path of ['/v1/sdk/sync', '/api/v1/environments/e/automations/k/trigger']) {
      const answer = await raw(`POST ${path} HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
      expect(parse(answer), path).toEqual({ status: '431', type: 'application/problem+json', body: { code: 'invalid_request', message: 'the request line and header fields are larger than 16 KiB' } });
      expect(answer).not.toContain('svc_key_');
    }
  });

  it('431 problem+json for a mobile edge path whose request line alone is over the limit (a 100 KB query)', async () => {
    const answer = await raw(`GET /v1/sdk/inbox?cursor=${'c'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(parse(answer)).toEqual({ status: '431', type: 'application/problem+json', body: { code: 'invalid_request', message: 'the request line and header fields are larger than 16 KiB' } });
  });

  it('431 {error} JSON elsewhere (the administration and OAuth APIs)', async () => {
    const answer = await raw(`GET /t/control/engage/admin/environments HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
    expect(parse(answer)).toEqual({ status: '431', type: 'application/json', body: { error: 'invalid_request', error_description: 'the request line and header fields are larger than 16 KiB' } });
  });

  it('400 for a request that is not HTTP/1.1, in the form of its path', async () => {
    expect(parse(await raw('POST /v1/sdk/sync HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'))).toMatchObject({ status: '400', type: 'application/problem+json', body: { code: 'invalid_request' } });
    expect(parse(await raw('\x00\x01garbage\r\n\r\n'))).toMatchObject({ status: '400', type: 'application/json', body: { error: 'invalid_request' } });
  });

  it('a valid request is served as before', async () => {
    expect(await raw('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*ok$/);
  });
});
