import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawUpload } from '../../../test/helpers/raw-upload';
import { lingerOnEarlyClose } from './linger';

/** A server that refuses every request with a 413 and `Connection: close` before reading its body, as the mobile edge does for a declared length over its cap. */
async function refusing(linger: boolean): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (linger) lingerOnEarlyClose(req);
    const body = JSON.stringify({ code: 'payload_too_large', message: 'body: too large' });
    res.writeHead(413, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

let open: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (open ? open.close(() => resolve()) : resolve())));

describe('an answer given before the request body arrived (413 on a declared length)', () => {
  it('reaches a client still sending 9 MB: the connection lingers, reading and dropping the rest, then closes', async () => {
    const { server, port } = await refusing(true);
    open = server;
    const { answer, sendError } = await rawUpload(port, '/v1/sdk/inbox/operations:batch', 9 * 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(sendError).toBeUndefined();
  });

  it('without it the client is reset while it sends (what the test above guards against)', async () => {
    const { server, port } = await refusing(false);
    open = server;
    const { sendError } = await rawUpload(port, '/v1/sdk/inbox/operations:batch', 9 * 1024 * 1024);
    expect(['ECONNRESET', 'EPIPE']).toContain(sendError);
  });
});
