import { createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCursorCodec, MAX_CURSOR_LENGTH, type CursorState } from './cursor';

const MASTER = Buffer.alloc(32, 7);
const OTHER_MASTER = Buffer.alloc(32, 8);
const INSTALLATION = '3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e6f';
const OTHER_INSTALLATION = '3f2b8c1e-5d4a-4e7b-9c0d-1a2b3c4d5e70';

const typical: CursorState = {
  installationId: INSTALLATION,
  generation: 3n,
  modules: ['FEATURE_FLAGS', 'PREFERENCES', 'PUSH'],
  revisions: [1_234_567n, 42n, 7n],
  issuedAt: new Date('2026-11-26T20:15:42Z'),
};

const codec = createCursorCodec(MASTER);
const expectOk = { installationId: INSTALLATION };
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('sync cursor', () => {
  it('round-trips a state, modules sorted, the time kept to the second', () => {
    const cursor = codec.encode({ ...typical, modules: ['PUSH', 'FEATURE_FLAGS', 'PREFERENCES'], issuedAt: new Date('2026-11-26T20:15:42.987Z') });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor, expectOk)).toEqual({ ok: true, state: typical });
    // Another codec from the same master key (another process) accepts it.
    expect(createCursorCodec(Buffer.from(MASTER)).decode(cursor, expectOk)).toEqual({ ok: true, state: typical });
  });

  it('round-trips every module, the extremes of int64, one to six components, and an upper-case installation id', () => {
    const state: CursorState = {
      installationId: INSTALLATION,
      generation: 2n ** 63n - 1n,
      modules: ['FEATURE_FLAGS', 'IN_APP', 'PREFERENCES', 'PUSH'],
      revisions: [0n, 2n ** 63n - 1n, 127n, 128n, 2n ** 63n - 1n, 2n ** 63n - 1n],
      issuedAt: new Date(0),
    };
    const cursor = codec.encode({ ...state, installationId: INSTALLATION.toUpperCase() });
    expect(cursor.length).toBeLessThanOrEqual(143);
    expect(codec.decode(cursor, { installationId: INSTALLATION.toUpperCase() })).toEqual({ ok: true, state });
    for (const module of ['FEATURE_FLAGS', 'IN_APP', 'PREFERENCES', 'PUSH'] as const) {
      const one = { ...state, modules: [module], revisions: [42n] };
      expect(codec.decode(codec.encode(one), expectOk)).toEqual({ ok: true, state: one });
    }
  });

  it('is deterministic and carries nothing beyond its fields (a typical cursor is 62 characters)', () => {
    const cursor = codec.encode(typical);
    expect(codec.encode(typical)).toBe(cursor);
    expect(cursor).toHaveLength(62);
    // 3 header bytes, 16 id bytes, generation 1, revisions 3 + 1 + 1, seconds 5, tag 16 = 46 bytes.
    expect(Buffer.from(cursor, 'base64url')).toHaveLength(46);
    // One component costs what its varint does.
    expect(codec.encode({ ...typical, revisions: [1_234_567n] })).toHaveLength(59);
  });

  it('matches an independent reading of the documented layout', () => {
    const bytes = Buffer.from(codec.encode(typical), 'base64url');
    const key = Buffer.from(hkdfSync('sha256', MASTER, Buffer.alloc(0), 'engage sync cursor v1', 32));
    expect(bytes.subarray(30)).toEqual(createHmac('sha256', key).update(bytes.subarray(0, 30)).digest().subarray(0, 16));
    expect([...bytes.subarray(0, 3)]).toEqual([1, 0b1101, 3]);
    expect(bytes.subarray(3, 19).toString('hex')).toBe(INSTALLATION.replaceAll('-', ''));
    expect(bytes[19]).toBe(3); // generation
    expect([...bytes.subarray(20, 25)]).toEqual([0x87, 0xad, 0x4b, 42, 7]); // 1,234,567, 42 and 7 in LEB128
  });

  it('refuses a changed character at every position (signature, or malformed when the change breaks the form)', () => {
    const cursor = codec.encode(typical);
    let checked = 0;
    for (let i = 0; i < cursor.length; i++) {
      for (const c of [B64URL[(B64URL.indexOf(cursor[i]) + 1) % 64], B64URL[(B64URL.indexOf(cursor[i]) + 33) % 64]]) {
        const tampered = cursor.slice(0, i) + c + cursor.slice(i + 1);
        const result = codec.decode(tampered, expectOk);
        expect(result.ok, `position ${i}`).toBe(false);
        if (!result.ok) expect(['signature', 'malformed']).toContain(result.reason);
        checked++;
      }
    }
    expect(checked).toBe(2 * 62);
  });

  it('refuses a flipped bit in every byte: signature, or malformed for the version byte', () => {
    const bytes = Buffer.from(codec.encode(typical), 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      for (const bit of [0x01, 0x80]) {
        const tampered = Buffer.from(bytes);
        tampered[i] ^= bit;
        expect(codec.decode(tampered.toString('base64url'), expectOk), `byte ${i} bit ${bit}`).toEqual({
          ok: false,
          reason: i === 0 ? 'malformed' : 'signature',
        });
      }
    }
  });

  it('refuses a truncated or extended cursor', () => {
    const cursor = codec.encode(typical);
    const bytes = Buffer.from(cursor, 'base64url');
    for (let n = 1; n < cursor.length; n++) expect(codec.decode(cursor.slice(0, n), expectOk).ok, `${n} characters`).toBe(false);
    for (let n = 0; n < bytes.length; n++) expect(codec.decode(bytes.subarray(0, n).toString('base64url'), expectOk).ok).toBe(false);
    for (const tail of ['A', 'AA', 'AAAA', cursor]) expect(codec.decode(cursor + tail, expectOk).ok).toBe(false);
    expect(codec.decode(Buffer.concat([bytes, Buffer.from([0])]).toString('base64url'), expectOk)).toEqual({ ok: false, reason: 'signature' });
  });

  it("refuses another key's cursor as signature, another installation's as installation", () => {
    expect(createCursorCodec(OTHER_MASTER).decode(codec.encode(typical), expectOk)).toEqual({ ok: false, reason: 'signature' });
    expect(codec.decode(codec.encode(typical), { installationId: OTHER_INSTALLATION })).toEqual({ ok: false, reason: 'installation' });
    expect(codec.decode(codec.encode(typical), { installationId: 'not-a-uuid' })).toEqual({ ok: false, reason: 'installation' });
  });

  it('refuses garbage, empty, huge, non-base64url and non-string input without throwing', () => {
    const cases: unknown[] = [
      '', 'A', 'AAAA', 'garbage', '!!!!', 'abc=', 'ab+/cd', ' ' + codec.encode(typical), codec.encode(typical) + '\n',
      'a'.repeat(MAX_CURSOR_LENGTH + 1), 'A'.repeat(10_000_000), '\u0000'.repeat(60), 'é'.repeat(59),
      Buffer.alloc(44, 2).toString('base64url'), null, undefined, 42, {}, [], Buffer.from(codec.encode(typical)),
    ];
    for (const input of cases) {
      expect(() => codec.decode(input, expectOk)).not.toThrow();
      expect(codec.decode(input, expectOk), String(input).slice(0, 40)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuses a non-canonical spelling of the same bytes (stray bits in the last character)', () => {
    const cursor = codec.encode(typical); // 44 bytes: the last of 59 characters carries 2 unused bits
    const last = B64URL.indexOf(cursor[cursor.length - 1]);
    const stray = cursor.slice(0, -1) + B64URL[last | 1];
    expect(Buffer.from(stray, 'base64url')).toEqual(Buffer.from(cursor, 'base64url'));
    expect(codec.decode(stray, expectOk)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses, as malformed, a correctly signed body that is not version 1 (as a later format might be)', () => {
    const key = Buffer.from(hkdfSync('sha256', MASTER, Buffer.alloc(0), 'engage sync cursor v1', 32));
    const sign = (body: number[]) => {
      const b = Buffer.from(body);
      return Buffer.concat([b, createHmac('sha256', key).update(b).digest().subarray(0, 16)]).toString('base64url');
    };
    const id = [...Buffer.from(INSTALLATION.replaceAll('-', ''), 'hex')];
    const good = [1, 0b1000, 1, ...id, 3, 5, 0x80, 0x01];
    expect(codec.decode(sign(good), expectOk)).toMatchObject({ ok: true, state: { generation: 3n, modules: ['PUSH'], revisions: [5n] } });
    const bad: Array<[string, number[]]> = [
      ['no module', [1, 0, 1, ...id, 3, 5, 1]],
      ['unknown module bit', [1, 0b11000, 1, ...id, 3, 5, 1]],
      ['no component', [1, 0b1000, 0, ...id, 3, 1]],
      ['seven components', [1, 0b1000, 7, ...id, 3, 1, 1, 1, 1, 1, 1, 1, 1]],
      ['longer spelling of a varint', [1, 0b1000, 1, ...id, 0x83, 0x00, 5, 1]],
      ['varint beyond 63 bits', [1, 0b1000, 1, ...id, ...Array(9).fill(0xff), 0x01, 5, 1]],
      ['missing time', [1, 0b1000, 1, ...id, 3, 5]],
      ['a component short', [1, 0b1001, 3, ...id, 3, 5, 1]],
      ['trailing byte', [...good, 0]],
    ];
    for (const [name, body] of bad) expect(codec.decode(sign(body), expectOk), name).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a state the server could never describe when encoding', () => {
    const bad: Array<[string, Partial<CursorState>]> = [
      ['installation id', { installationId: 'abc' }],
      ['no module', { modules: [] }],
      ['repeated module', { modules: ['PUSH', 'PUSH'] }],
      ['unknown module', { modules: ['INBOX' as never] }],
      ['no component', { revisions: [] }],
      ['seven components', { revisions: [1n, 1n, 1n, 1n, 1n, 1n, 1n] }],
      ['negative component', { revisions: [-1n] }],
      ['number component', { revisions: [1 as never] }],
      ['negative generation', { generation: -1n }],
      ['generation beyond int64', { generation: 2n ** 63n }],
      ['number generation', { generation: 3 as never }],
      ['invalid date', { issuedAt: new Date(NaN) }],
      ['date before 1970', { issuedAt: new Date(-1000) }],
    ];
    for (const [name, change] of bad) expect(() => codec.encode({ ...typical, ...change }), name).toThrow();
    expect(() => createCursorCodec(Buffer.alloc(16))).toThrow(TypeError);
  });

  it('answers a cursor it verified before from its cache: the same state, still only for its installation', () => {
    const fresh = createCursorCodec(MASTER);
    const cursor = fresh.encode(typical);
    const first = fresh.decode(cursor, expectOk);
    expect(first).toEqual({ ok: true, state: typical });
    const again = fresh.decode(cursor, { installationId: INSTALLATION.toUpperCase() });
    expect(again).toEqual({ ok: true, state: typical });
    // The cache's hit, frozen: no caller can change what the next one is given.
    if (!first.ok || !again.ok) throw new Error('unreachable');
    expect(again.state).toBe(first.state);
    expect(Object.isFrozen(again.state.revisions)).toBe(true);
    // Held, yet another installation's: refused as the full path refuses it.
    expect(fresh.decode(cursor, { installationId: OTHER_INSTALLATION })).toEqual({ ok: false, reason: 'installation' });
    expect(fresh.decode(cursor, { installationId: 'not-a-uuid' })).toEqual({ ok: false, reason: 'installation' });
    expect(fresh.decode(cursor, undefined as never)).toEqual({ ok: false, reason: 'installation' });
    // A refused text never enters: its next decode is refused again.
    const forged = cursor.slice(0, -2) + (cursor.at(-2) === 'A' ? 'B' : 'A') + cursor.at(-1);
    expect(fresh.decode(forged, expectOk)).toEqual({ ok: false, reason: 'signature' });
    expect(fresh.decode(forged, expectOk)).toEqual({ ok: false, reason: 'signature' });
    // Past the cache's bound (two generations of 16,384), the first cursor is verified again, and still accepted.
    for (let i = 0; i < 2 * 16_384 + 1; i++) fresh.decode(fresh.encode({ ...typical, revisions: [BigInt(i), 1n, 1n] }), expectOk);
    const later = fresh.decode(cursor, expectOk);
    expect(later).toEqual({ ok: true, state: typical });
    if (!later.ok) throw new Error('unreachable');
    expect(later.state).not.toBe(first.state);
  });
});
