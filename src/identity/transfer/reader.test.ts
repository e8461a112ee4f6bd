import { describe, expect, it } from 'vitest';
import { jsonArrayElements, ndjsonRecords, type ByteCounter } from './reader';

async function* chunks(...parts: Buffer[]) {
  for (const p of parts) yield p;
}
/** Splits `buf` at byte offsets. */
const splitAt = (buf: Buffer, ...at: number[]) => [0, ...at].map((from, i) => buf.subarray(from, [...at, buf.length][i]));

describe('import file readers', () => {
  it('decode a character whose bytes straddle two chunks (NDJSON and a JSON array)', async () => {
    const line = Buffer.from('{"email":"josé@acme.test","name":"Zoë 😀"}\n');
    for (let cut = 1; cut < line.length; cut++) {
      const read = [];
      for await (const r of ndjsonRecords(chunks(...splitAt(line, cut)))) read.push(r.value);
      expect(read, `cut at ${cut}`).toEqual([{ email: 'josé@acme.test', name: 'Zoë 😀' }]);
    }
    const doc = Buffer.from('{"users":[{"email":"josé@acme.test"},{"email":"😀@x.test"}]}');
    for (let cut = 1; cut < doc.length; cut++) {
      const read = [];
      for await (const r of jsonArrayElements(chunks(...splitAt(doc, cut)), 'users')) read.push(r.value);
      expect(read, `cut at ${cut}`).toEqual([{ email: 'josé@acme.test' }, { email: '😀@x.test' }]);
    }
  });

  it('count the bytes of the records handed out, not of what was read ahead, so progress moves with each record', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `{"email":"u${i}@acme.test"}\n`);
    const all = Buffer.from(lines.join(''));
    for (const read of [(c: ByteCounter) => ndjsonRecords(chunks(all), c), (c: ByteCounter) => jsonArrayElements(chunks(Buffer.from(`{"users":[${lines.join(',')}]}`)), 'users', c)]) {
      const counter: ByteCounter = { bytes: 0 };
      const seen: number[] = [];
      for await (const r of read(counter)) {
        void r;
        seen.push(counter.bytes);
      }
      expect(seen).toHaveLength(1000);
      // One chunk of the whole file: the first record is about a thousandth of it, not all of it.
      expect(seen[0] / all.length).toBeLessThan(0.01);
      expect(seen[499] / all.length).toBeGreaterThan(0.45);
      expect(seen[499] / all.length).toBeLessThan(0.55);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
    }
  });

  it('end at the input\'s size', async () => {
    const buf = Buffer.from('{"a":1}\n{"b":"é"}\n\n');
    const counter: ByteCounter = { bytes: 0 };
    for await (const r of ndjsonRecords(chunks(...splitAt(buf, 3, 11)), counter)) void r;
    expect(counter.bytes).toBe(buf.length);
  });
});
