/**
 * Reading a JSON request body strictly: a size cap that stops buffering at once, UTF-8 only
 * (RFC 8259 §8.1), no lone surrogates, no NUL characters, at most MAX_JSON_DEPTH levels of
 * nesting (json-bounds.ts), and a client that goes away mid-upload reported as such
 * rather than as a server fault. Failures are described, and the caller's error family renders
 * them.
 */
import type { Context } from 'hono';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ClientClosedError } from './errors';
import { hasNul, MAX_JSON_DEPTH, NUL_REASON, tooDeep } from './json-bounds';
import { headerOf } from './request';

export type BodyFailure =
  /** Larger than the cap (declared or read so far). */
  | { kind: 'too_large'; limit: number }
  /** Unreadable or not what the route takes; `field` is `body`, `Content-Type` or a path in the JSON. */
  | { kind: 'invalid'; field: string; reason: string };

export interface JsonBodyOptions {
  maxBytes: number;
  fail: (f: BodyFailure) => Error;
  /**
   * Levels of arrays and objects the body may nest (default MAX_JSON_DEPTH). Only a route that
   * bounds each item itself, iteratively, and answers per item (the operation batch) lifts it.
   */
  maxDepth?: number;
  /**
   * `reject` (the default): a NUL character in any string or property name is a failure naming
   * it. `allow` only for a route whose per-item validation rejects it (the operation batch).
   */
  nul?: 'reject' | 'allow';
}

const JSON_TYPE = /^application\/(?:[^;\s]+\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** Reads, decodes and parses a JSON body under the rules above. */
export async function readJsonBody(c: Context, opts: JsonBodyOptions): Promise<unknown> {
  const type = headerOf(c, 'content-type') ?? '';
  if (!JSON_TYPE.test(type)) throw opts.fail({ kind: 'invalid', field: 'body', reason: 'Content-Type must be application/json' });
  // RFC 8259 §8.1: JSON exchanged between systems is UTF-8; any other charset would be read wrongly.
  const charset = CHARSET.exec(type)?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) throw opts.fail({ kind: 'invalid', field: 'Content-Type', reason: 'charset must be utf-8' });
  const bytes = await readBodyBytes(c, opts.maxBytes);
  if (bytes === undefined) throw opts.fail({ kind: 'too_large', limit: opts.maxBytes });
  if (!isUtf8(bytes)) throw opts.fail(invalidUtf8(bytes));
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw opts.fail({ kind: 'invalid', field: 'body', reason: 'is not valid JSON' });
  }
  // Before anything else walks the value: every later walk may be recursive.
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  if (maxDepth !== Infinity) {
    const deep = tooDeep(value, maxDepth);
    if (deep !== undefined) throw opts.fail({ kind: 'invalid', field: deep, reason: `nests arrays and objects more than ${maxDepth} levels deep` });
  }
  // A lone surrogate can only come from a \uD800–\uDFFF escape (UTF-8 cannot encode one), so
  // the walk runs only when the text holds such an escape.
  if (SURROGATE_ESCAPE.test(text)) {
    const at = findString(value, (s) => LONE_SURROGATE.test(s));
    if (at !== undefined) throw opts.fail({ kind: 'invalid', field: at, reason: 'holds a lone surrogate (\\uD800–\\uDFFF escape), which is not Unicode text' });
  }
  // Likewise NUL: inside a JSON string it can only be written as the escape \u0000.
  if (opts.nul !== 'allow' && text.includes('\\u0000')) {
    const at = findString(value, hasNul);
    if (at !== undefined) throw opts.fail({ kind: 'invalid', field: at, reason: NUL_REASON });
  }
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Invalid UTF-8 decides the answer; which field it sits in is found by decoding with
 * replacement characters and naming the first string that holds one.
 */
function invalidUtf8(bytes: Buffer): BodyFailure {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'invalid', field: 'body', reason: 'is not valid UTF-8' };
  }
  return { kind: 'invalid', field: findString(value, (s) => s.includes('\uFFFD')) ?? 'body', reason: 'is not valid UTF-8' };
}

/**
 * The path (`operations[2].payload.name`, `body` for the root) of the first string value or
 * property name that `bad` picks, walked without recursion. A property name is named by its
 * own path.
 */
export function findString(root: unknown, bad: (s: string) => boolean): string | undefined {
  const todo: [unknown, string][] = [[root, '']];
  while (todo.length > 0) {
    const [v, path] = todo.pop()!;
    if (typeof v === 'string') {
      if (bad(v)) return path === '' ? 'body' : path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) todo.push([v[i], `${path}[${i}]`]);
    } else if (typeof v === 'object' && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        const at = path === '' ? k : `${path}.${k}`;
        if (bad(k)) return at;
        todo.push([(v as Record<string, unknown>)[k], at]);
      }
    }
  }
  return undefined;
}

/**
 * The body's bytes, or `undefined` as soon as they exceed `maxBytes`: a declared
 * Content-Length over the cap is refused before reading, and a body that grows past it stops
 * being buffered at the chunk that crosses it (the rest is read and dropped after the answer, whose
 * connection closes in stages: linger.ts). A client that closes the connection mid-body gives a ClientClosedError.
 */
export async function readBodyBytes(c: Context, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(headerOf(c, 'content-length') ?? NaN);
  if (declared > maxBytes) return undefined;
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && typeof incoming.on === 'function') return readIncoming(incoming, maxBytes);
  const stream = c.req.raw.body;
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  // The client went away before the body was asked for (while the handler awaited the database,
  // say): its 'close' is past, and a wait for 'end' would never end.
  if (incoming.destroyed) return Promise.reject(new ClientClosedError());
  // The usual case: the parser had the whole message (a small body comes in the packet of its
  // head), so every byte is buffered already: taken at once, without the 'data' and 'end' turns.
  if (incoming.complete && !incoming.readableFlowing) {
    if (incoming.readableLength > maxBytes) return Promise.resolve(undefined);
    const held = incoming.read() as Buffer | null;
    return Promise.resolve(held ?? Buffer.alloc(0));
  }
  return new Promise<Buffer | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onGone);
      incoming.off('close', onGone);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        done();
        resolve(undefined);
      }
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    // 'error' (ECONNRESET "aborted") or 'close' before 'end': the client went away mid-body.
    const onGone = () => {
      done();
      reject(new ClientClosedError());
    };
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onGone);
    incoming.once('close', onGone);
  });
}
