import { StringDecoder } from 'node:string_decoder';
import { MALFORMED } from './importer';

/** One record read from an import file: its 1-based line (NDJSON) or element number, and its value. */
export interface ReadRecord {
  line: number;
  value: unknown;
}

/**
 * How far into the input the reader has got: the bytes of every record handed out so far, not
 * of what was read ahead (a 64 KiB chunk holds hundreds of records), so a progress bar moves
 * with the records the importer took. Within a chunk the count is proportional to characters.
 */
export interface ByteCounter {
  bytes: number;
}

/** The byte offset `i` characters into a chunk of `bytes` bytes holding `chars` characters. */
const within = (bytes: number, chars: number, i: number) => (chars === 0 ? bytes : Math.round((bytes * i) / chars));

function parse(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : MALFORMED;
  } catch {
    return MALFORMED;
  }
}

/**
 * NDJSON records from a byte stream, one per non-empty line, in constant memory: the stream's
 * async iterator pulls a chunk only when the previous ones are consumed (backpressure), and
 * only the unfinished last line is carried over. A line that is not a JSON object is MALFORMED.
 */
export async function* ndjsonRecords(input: AsyncIterable<Buffer | string>, counter?: ByteCounter): AsyncGenerator<ReadRecord> {
  let rest = '';
  let line = 0;
  let before = 0; // bytes of the chunks before this one
  // A character whose bytes straddle two chunks is decoded whole (Buffer#toString would turn
  // each half into U+FFFD).
  const utf8 = new StringDecoder('utf8');
  for await (const chunk of input) {
    const decoded = typeof chunk === 'string' ? chunk : utf8.write(chunk);
    const text = rest + decoded;
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      line++;
      const l = text.slice(start, nl).trim();
      start = nl + 1;
      // The carried-over `rest` was counted with the chunk it came from.
      if (counter) counter.bytes = before + within(bytes, decoded.length, start - rest.length);
      if (l) yield { line, value: parse(l) };
    }
    before += bytes;
    rest = text.slice(start);
  }
  rest += utf8.end();
  if (counter) counter.bytes = before;
  line++;
  if (rest.trim()) yield { line, value: parse(rest.trim()) };
}

/**
 * The elements of the array under the top-level key `key` of a JSON document (`{"users": [...]}`:
 * Firebase's auth:export, Keycloak's realm export), one at a time, without holding the
 * document: a scanner tracks strings and nesting and cuts out each element of that array.
 */
export async function* jsonArrayElements(input: AsyncIterable<Buffer | string>, key: string, counter?: ByteCounter): AsyncGenerator<ReadRecord> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastKey: string | undefined;
  let inTarget = false;
  let element = '';
  let capturing = false;
  let index = 0;
  let pending = ''; // the current string token's text so far, across chunks (keys only: depth 1)
  let before = 0; // bytes of the chunks before this one
  const utf8 = new StringDecoder('utf8'); // as in ndjsonRecords
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : utf8.write(chunk);
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    let captureFrom = capturing ? 0 : -1;
    stringStart = inString ? 0 : -1;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) {
          inString = false;
          if (depth === 1) {
            lastKey = pending + text.slice(stringStart, i);
            pending = '';
          }
        }
        continue;
      }
      if (c === 0x22) {
        inString = true;
        stringStart = i + 1;
        pending = '';
      } else if (c === 0x7b || c === 0x5b) {
        if (inTarget && depth === 2 && c === 0x7b) {
          capturing = true;
          captureFrom = i;
        }
        if (depth === 1 && c === 0x5b && lastKey === key) inTarget = true;
        depth++;
      } else if (c === 0x7d || c === 0x5d) {
        depth--;
        if (capturing && depth === 2) {
          element += text.slice(captureFrom, i + 1);
          capturing = false;
          captureFrom = -1;
          if (counter) counter.bytes = before + within(bytes, text.length, i + 1);
          yield { line: ++index, value: parse(element) };
          element = '';
        } else if (inTarget && depth === 1) inTarget = false;
      } else if (c === 0x3a || c === 0x2c) {
        if (depth === 1 && c === 0x2c) lastKey = undefined;
      }
    }
    if (inString && depth === 1) pending += text.slice(stringStart);
    if (capturing) element += text.slice(captureFrom);
    before += bytes;
  }
  if (counter) counter.bytes = before;
}
