import { describe, expect, it } from 'vitest';
import { createInboxCursorCodec, INBOX_CURSOR_LENGTH, type InboxPosition } from './cursor';

const MASTER = Buffer.alloc(32, 3);
const position: InboxPosition = { installationId: '0b5e7a52-4c1d-4f0e-9a3b-2c1d0e9f8a7b', generation: 4, sortOrder: 'OLDEST_FIRST', installationSeq: 17, profileSeq: 9_007_199_254_740_991 };

describe('inbox cursor', () => {
  it('round-trips a position; another process (codec of the same master key) reads it too', () => {
    const cursor = createInboxCursorCodec(MASTER).encode({ ...position, installationId: position.installationId.toUpperCase() });
    expect(cursor).toHaveLength(INBOX_CURSOR_LENGTH);
    expect(createInboxCursorCodec(Buffer.from(MASTER)).decode(cursor)).toEqual(position);
  });

  it('answers a cursor it issued or verified from its cache: the same position, frozen; a refused text never enters', () => {
    const codec = createInboxCursorCodec(MASTER);
    const issued = codec.encode(position);
    const hit = codec.decode(issued);
    expect(hit).toEqual(position);
    expect(Object.isFrozen(hit)).toBe(true);
    expect(codec.decode(issued)).toBe(hit);
    // Verified once by another codec, then held by it.
    const other = createInboxCursorCodec(MASTER);
    expect(other.decode(issued)).toEqual(position);
    expect(other.decode(issued)).toBe(other.decode(issued));
    // Forged (a changed character) or another key's: refused, again and again.
    const forged = issued.slice(0, 30) + (issued[30] === 'A' ? 'B' : 'A') + issued.slice(31);
    expect(codec.decode(forged)).toBeUndefined();
    expect(codec.decode(forged)).toBeUndefined();
    expect(createInboxCursorCodec(Buffer.alloc(32, 4)).decode(issued)).toBeUndefined();
    expect(codec.decode('x'.repeat(INBOX_CURSOR_LENGTH))).toBeUndefined();
    expect(codec.decode(42 as never)).toBeUndefined();
  });

  it('issues one text per position: a position issued before gets the same text; another position, another text', () => {
    const codec = createInboxCursorCodec(MASTER);
    const first = codec.encode(position);
    expect(codec.encode({ ...position })).toBe(first);
    expect(createInboxCursorCodec(MASTER).encode(position)).toBe(first);
    const others = [{ installationSeq: 18 }, { profileSeq: 8 }, { generation: 5 }, { sortOrder: 'NEWEST_FIRST' as const }, { installationId: '0b5e7a52-4c1d-4f0e-9a3b-2c1d0e9f8a7c' }];
    const texts = others.map((o) => codec.encode({ ...position, ...o }));
    expect(new Set([first, ...texts]).size).toBe(others.length + 1);
    others.forEach((o, i) => expect(createInboxCursorCodec(MASTER).decode(texts[i])).toEqual({ ...position, ...o }));
  });
});
