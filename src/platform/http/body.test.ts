import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { readBodyBytes } from './body';
import { ClientClosedError } from './errors';

/** A request as the Node adapter hands it over (c.env.incoming), its head parsed, its body not. */
function pending(): { c: Context; incoming: IncomingMessage } {
  const incoming = new IncomingMessage(new Socket());
  incoming.headers = { 'content-length': '5000' };
  return { c: { env: { incoming } } as unknown as Context, incoming };
}

describe('readBodyBytes on a Node request', () => {
  it('a client gone before the body is asked for (its close already past) is a ClientClosedError at once, not a wait without end', async () => {
    const { c, incoming } = pending();
    incoming.destroy();
    await new Promise((r) => setImmediate(r));
    await expect(readBodyBytes(c, 64 * 1024)).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('a client gone while the body is read is a ClientClosedError', async () => {
    const { c, incoming } = pending();
    const read = readBodyBytes(c, 64 * 1024);
    incoming.push(Buffer.from('{"batchId":"'));
    incoming.destroy();
    await expect(read).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('a body that ends is its bytes', async () => {
    const { c, incoming } = pending();
    const read = readBodyBytes(c, 64 * 1024);
    incoming.push(Buffer.from('{"a":'));
    incoming.push(Buffer.from('1}'));
    incoming.push(null);
    expect((await read)?.toString()).toBe('{"a":1}');
  });
});
