import { connect } from 'node:net';

/**
 * A POST declaring and then sending `size` bytes of body over a plain socket, as an HTTP client
 * does (no waiting for `100 Continue`): what it could read of the answer, and how its sending
 * ended (`ECONNRESET`/`EPIPE` when the server reset the connection under it).
 */
export function rawUpload(port: number, path: string, size: number, headers: Record<string, string> = {}): Promise<{ answer: string; sendError?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sendError: string | undefined;
    socket.on('data', (c) => (answer += c.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (sendError ??= e.code));
    socket.on('close', () => resolve({ answer, sendError }));
    const head = Object.entries({ Host: 'x', 'Content-Type': 'application/json', ...headers, 'Content-Length': String(size) }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end();
    };
    pump();
  });
}
