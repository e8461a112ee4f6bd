/**
 * Lingering close (RFC 9112 §9.6). An answer given before its request's body has arrived (a 413
 * for a body over `maxRequestBytes`, decided from Content-Length) closes the connection; Node then
 * destroys the socket as soon as the answer is written, and the bytes the client is still sending
 * reach a closed socket: the kernel answers them with a reset, and the client (curl, fetch, an
 * SDK's HTTP stack) fails with a broken pipe or a reset, usually without reading the answer that
 * was already in its receive buffer. Instead such a connection is closed in stages: the answer
 * and a FIN, then what the client still sends is read and dropped until it closes its side, for at
 * most `LINGER_MS`, then the socket is destroyed. Connections whose request was read in full
 * close as before.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection answered early keeps reading what its client still sends. */
export const LINGER_MS = 2_000;

/** The request each socket carries now (keep-alive: one after the other). */
const current = new WeakMap<Socket, IncomingMessage>();

/** Call for every request, before its handler: its socket lingers if it closes with the body unread. */
export function lingerOnEarlyClose(req: IncomingMessage): void {
  const socket = req.socket as Socket;
  if (!current.has(socket)) {
    const destroySoon = socket.destroySoon.bind(socket);
    let lingering = false;
    socket.destroySoon = () => {
      const r = current.get(socket);
      if (lingering) return;
      if (!r || r.complete || socket.destroyed) return destroySoon();
      lingering = true;
      socket.end();
      const timer = setTimeout(() => socket.destroy(), LINGER_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
      socket.once('end', () => socket.destroy());
      r.resume();
    };
  }
  current.set(socket, req);
}
