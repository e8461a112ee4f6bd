/**
 * What the server answers a request Node's HTTP parser refuses before any route sees it (the
 * server's 'clientError' event): header fields over `maxHeaderSize` (16 KiB), a malformed request
 * line or header, a request that did not arrive within the server's timeouts. Node's own answer is
 * a bare status line with no body; a client then gets no error in its API's form. This writes one,
 * chosen by the request line's path when the bytes received hold it: `application/problem+json`
 * for the mobile edge and server messaging (`/v1/…`, `/api/v1/…`, spec 01), the `{error}` JSON of
 * the other APIs elsewhere (an OAuth client reads `error` as well). Nothing of the request is
 * echoed or logged: its headers may hold credentials.
 */
import type { Duplex } from 'node:stream';

interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

/** The status and words for a parser error code (llhttp's HPE_*, Node's own timeouts). */
function statusOf(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: 'the request line and header fields are larger than 16 KiB' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'the request did not arrive in time' };
  return { status: 400, reason: 'Bad Request', message: 'the request is not valid HTTP/1.1' };
}

/**
 * Whether the request line in `raw` (when it is there) names a spec 01 path: its method and the
 * path's first segments decide, however long the rest of the line (a 100 KB query string is what
 * overflows the parser).
 */
export function isEdgePath(raw: Buffer | undefined): boolean {
  return raw !== undefined && /^[A-Z]{1,16} \/(?:api\/)?v1\//.test(raw.subarray(0, 32).toString('latin1'));
}

/** The raw HTTP/1.1 response for a refused request; the connection closes after it. */
export function clientErrorResponse(err: ParserError): string {
  const { status, reason, message } = statusOf(err.code);
  const edge = isEdgePath(err.rawPacket);
  const body = JSON.stringify(edge ? { code: 'invalid_request', message } : { error: 'invalid_request', error_description: message });
  const type = edge ? 'application/problem+json' : 'application/json';
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`;
}

/** The listener for `server.on('clientError', …)`. */
export function answerClientError(err: ParserError, socket: Duplex): void {
  // A connection reset or a socket already written to: nothing a client could read (Node's docs).
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(err));
}
