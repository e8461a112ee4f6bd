import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../platform/crypto';
import { createRecentMap } from '../../platform/recent-map';

/**
 * The sync cursor (issue 26, protocol point 2): opaque to the client (spec 01 SyncRequest: "server-
 * signed and must never be constructed or edited by the client"), authenticated with a key derived
 * from the master key, so any process of a deployment accepts any other's cursors.
 *
 * It binds the installation, its binding generation, the set of modules asked for and the state the
 * response described (a vector of revision components, whose meaning is the sync service's: the
 * environment's definitions, the installation's and the profile's revisions), plus the time it was
 * issued. Nothing else: no
 * targeting, no attribute values, nothing the response itself did not already show the installation.
 * Hence a MAC, not encryption (docs/decisions.md "Sync cursor and quiet hours").
 *
 * Wire form, base64url without padding of:
 *
 *   0      1   version (1)
 *   1      1   modules, a bit set over MODULE_BITS (non-empty, no unknown bit)
 *   2      1   how many revision components follow the generation (1 .. MAX_COMPONENTS)
 *   3     16   installation id (the UUID's bytes)
 *   19   var   generation          } unsigned LEB128, shortest form,
 *        var   revision components } at most 2^63 − 1 (spec 01: int64, min 0)
 *        var   issued at, seconds  }
 *   n-16  16   HMAC-SHA256(key, bytes 0 .. n-16), first 16 bytes (RFC 2104 §5: not less than half)
 *
 * `decode` never throws: every way a string can fail is a reason. Which reason leads where is the
 * caller's decision (issue 26: `malformed`, `signature` and `installation` answer 400 `invalid_cursor`;
 * another generation, other modules or a revision too old for a delta answer a full snapshot).
 */

/** spec 01 SdkModule. Bit positions are part of the wire form: append new modules, never reorder. */
export const SDK_MODULES = ['FEATURE_FLAGS', 'IN_APP', 'PREFERENCES', 'PUSH'] as const;
export type SdkModule = (typeof SDK_MODULES)[number];
const MODULE_BITS: Readonly<Record<SdkModule, number>> = { FEATURE_FLAGS: 0, IN_APP: 1, PREFERENCES: 2, PUSH: 3 };
const KNOWN_BITS = SDK_MODULES.reduce((mask, m) => mask | (1 << MODULE_BITS[m]), 0);

/** HKDF info label of the cursor key (platform/crypto deriveKey). A new label invalidates every cursor. */
export const CURSOR_KEY_LABEL = 'engage sync cursor v1';

const VERSION = 1;
const TAG_BYTES = 16;
const UUID_BYTES = 16;
const HEADER_BYTES = 3 + UUID_BYTES;
/** One byte per varint at least: generation, one revision, issued at. */
const MIN_BYTES = HEADER_BYTES + 3 + TAG_BYTES;
const MAX_VARINT_BYTES = 9; // 63 bits in 7-bit groups
/** Revision components a cursor may carry. */
export const MAX_COMPONENTS = 6;
const MAX_BYTES = HEADER_BYTES + MAX_VARINT_BYTES * (2 + MAX_COMPONENTS) + TAG_BYTES;
/**
 * The longest string `decode` looks at; anything longer is refused before any decoding. A version 1
 * cursor is at most ceil(MAX_BYTES · 4/3) = 143 characters; the margin leaves room for a later
 * version (and is what a request schema may bound `cursor` to).
 */
export const MAX_CURSOR_LENGTH = 256;
const INT64_MAX = (1n << 63n) - 1n;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface CursorState {
  /** The installation's id, a UUID (compared case-insensitively, returned lower-case). */
  installationId: string;
  /** The binding generation the response belonged to. */
  generation: bigint;
  /** The modules asked for, a set: `encode` sorts them, `decode` returns them sorted. */
  modules: readonly SdkModule[];
  /** The state described: 1 .. MAX_COMPONENTS revision components, in the caller's order. */
  revisions: readonly bigint[];
  /** When the cursor was issued; kept to the second. */
  issuedAt: Date;
}

export type CursorRejection = 'malformed' | 'signature' | 'installation';
export type CursorDecoded = { ok: true; state: CursorState } | { ok: false; reason: CursorRejection };

export interface CursorCodec {
  /** The cursor of a state. Throws (TypeError, RangeError) on a state the server could never describe. */
  encode(state: CursorState): string;
  /** The state a cursor describes, if it is authentic and belongs to `expect.installationId`. Never throws. */
  decode(cursor: unknown, expect: { installationId: string }): CursorDecoded;
}

/** The codec of a deployment; `masterKey` is the master key itself (the cursor key is derived here). */
export function createCursorCodec(masterKey: Buffer): CursorCodec {
  if (!Buffer.isBuffer(masterKey) || masterKey.length < 32) throw new TypeError('the cursor codec needs the 32-byte master key');
  // A KeyObject made once: createHmac given a Buffer prepares a new key on every call (a third of a cursor's cost).
  const key = createSecretKey(deriveKey(masterKey, CURSOR_KEY_LABEL));
  const tagOf = (body: Buffer) => createHmac('sha256', key).update(body).digest().subarray(0, TAG_BYTES);
  const verified = createRecentMap<string, CursorState>(VERIFIED_PER_GENERATION);

  return {
    encode(state) {
      const body = encodeBody(state);
      return Buffer.concat([body, tagOf(body)], body.length + TAG_BYTES).toString('base64url');
    },

    decode(cursor, expect) {
      // A cursor already verified here: the same text is the same authentic state (an unchanged
      // sync answers with the cursor it was sent, so an SDK polling sends one text again and
      // again). Only the installation is checked again; any mismatch takes the full path, which
      // names the reason.
      if (typeof cursor === 'string') {
        const held = verified.get(cursor);
        if (held && typeof expect?.installationId === 'string' && expect.installationId.toLowerCase() === held.installationId) return { ok: true, state: held };
      }
      try {
        // Bounded before anything else: no regex, base64 or HMAC over a megabyte from a client.
        if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return rejected('malformed');
        if (!BASE64URL.test(cursor)) return rejected('malformed');
        const bytes = Buffer.from(cursor, 'base64url');
        // Node's decoder ignores stray bits of the last character: only the canonical spelling
        // of the bytes is the cursor, so no two strings are one cursor.
        if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES || bytes.toString('base64url') !== cursor) return rejected('malformed');
        if (bytes[0] !== VERSION) return rejected('malformed');
        const body = bytes.subarray(0, bytes.length - TAG_BYTES);
        if (!timingSafeEqual(tagOf(body), bytes.subarray(bytes.length - TAG_BYTES))) return rejected('signature');
        const state = decodeBody(body);
        if (!state) return rejected('malformed');
        const expected = uuidBytes(expect?.installationId);
        const actual = body.subarray(3, HEADER_BYTES);
        if (!expected || !timingSafeEqual(expected, actual)) return rejected('installation');
        verified.put(cursor, frozen(state));
        return { ok: true, state };
      } catch {
        return rejected('malformed');
      }
    },
  };
}

const rejected = (reason: CursorRejection): CursorDecoded => ({ ok: false, reason });

/**
 * How many verified cursors a generation of the cache (platform/recent-map.ts) holds: it keeps the last 16,384 to
 * 32,768 distinct cursors decoded (each ~400 bytes with its state: at most ~13 MB), so a process
 * serving that many polling installations checks each cursor's HMAC once, not at every poll
 * (issue 26 "Performance": the HMAC and the decoding were half of an empty delta's own cost).
 */
const VERIFIED_PER_GENERATION = 16_384;

/** A verified cursor's state, frozen: what a hit of the cache answers, shared by every hit. */
function frozen(state: CursorState): CursorState {
  Object.freeze(state.modules);
  Object.freeze(state.revisions);
  return Object.freeze(state);
}

function encodeBody(state: CursorState): Buffer {
  const out = Buffer.allocUnsafe(MAX_BYTES - TAG_BYTES);
  if (!writeUuid(state.installationId, out, 3)) throw new TypeError('installationId must be a UUID');
  let mask = 0;
  for (const m of state.modules) {
    if (!Object.hasOwn(MODULE_BITS, m)) throw new TypeError(`unknown module ${String(m)}`);
    mask |= 1 << MODULE_BITS[m];
  }
  let count = 0;
  for (let bits = mask; bits !== 0; bits &= bits - 1) count++;
  if (count === 0 || count !== state.modules.length) throw new TypeError('modules must be a non-empty set');
  if (!Array.isArray(state.revisions) || state.revisions.length === 0 || state.revisions.length > MAX_COMPONENTS) {
    throw new TypeError(`revisions must hold 1 to ${MAX_COMPONENTS} components`);
  }
  const seconds = state.issuedAt instanceof Date ? Math.floor(state.issuedAt.getTime() / 1000) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError('issuedAt must be a date after 1970');
  out[0] = VERSION;
  out[1] = mask;
  out[2] = state.revisions.length;
  let at = writeVarint(int64(state.generation, 'generation'), out, HEADER_BYTES);
  for (let i = 0; i < state.revisions.length; i++) at = writeVarint(int64(state.revisions[i], `revision component ${i}`), out, at);
  at = writeVarint(BigInt(seconds), out, at);
  return out.subarray(0, at);
}

/** The state of an authentic body, or undefined if its structure is not version 1's. */
function decodeBody(body: Buffer): CursorState | undefined {
  const mask = body[1];
  const count = body[2];
  if (mask === 0 || (mask & ~KNOWN_BITS) !== 0 || count === 0 || count > MAX_COMPONENTS) return undefined;
  const modules = SDK_MODULES.filter((m) => (mask & (1 << MODULE_BITS[m])) !== 0).sort((a, b) => MODULE_BITS[a] - MODULE_BITS[b]);
  const reader = { at: HEADER_BYTES };
  const generation = readVarint(body, reader);
  const revisions: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const r = readVarint(body, reader);
    if (r === undefined) return undefined;
    revisions.push(r);
  }
  const seconds = readVarint(body, reader);
  if (generation === undefined || seconds === undefined || seconds > BigInt(Number.MAX_SAFE_INTEGER) / 1000n) return undefined;
  if (reader.at !== body.length) return undefined;
  return {
    installationId: uuidString(body.subarray(3, HEADER_BYTES)),
    generation,
    modules,
    revisions,
    issuedAt: new Date(Number(seconds) * 1000),
  };
}

function int64(value: unknown, what: string): bigint {
  if (typeof value !== 'bigint') throw new TypeError(`${what} must be a bigint`);
  if (value < 0n || value > INT64_MAX) throw new RangeError(`${what} must be within 0 .. 2^63 - 1`);
  return value;
}

/** Unsigned LEB128 of `value` into `out` at `at`; the offset after it. Number arithmetic while exact. */
function writeVarint(value: bigint, out: Buffer, at: number): number {
  if (value <= MAX_SAFE) {
    let v = Number(value);
    while (v >= 0x80) {
      out[at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    out[at++] = v;
    return at;
  }
  let v = value;
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out[at++] = v === 0n ? low : low | 0x80;
  } while (v !== 0n);
  return at;
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Unsigned LEB128 in its shortest form, at most 2^63 − 1; undefined otherwise. */
function readVarint(buf: Buffer, reader: { at: number }): bigint | undefined {
  let value = 0n;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    if (reader.at >= buf.length) return undefined;
    const byte = buf[reader.at++];
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) {
      // A last group of 0 after the first is a longer spelling of a shorter number.
      if (byte === 0 && i > 0) return undefined;
      return value;
    }
  }
  return undefined;
}

function uuidBytes(id: unknown): Buffer | undefined {
  const out = Buffer.allocUnsafe(UUID_BYTES);
  return writeUuid(id, out, 0) ? out : undefined;
}

/** A UUID's 16 bytes into `out` at `at`; false (nothing meaningful written) if `id` is not a UUID. */
function writeUuid(id: unknown, out: Buffer, at: number): boolean {
  if (typeof id !== 'string' || !UUID.test(id)) return false;
  // The five groups of the canonical form, hex each: 4, 2, 2, 2 and 6 bytes.
  at += out.write(id.slice(0, 8), at, 'hex');
  at += out.write(id.slice(9, 13), at, 'hex');
  at += out.write(id.slice(14, 18), at, 'hex');
  at += out.write(id.slice(19, 23), at, 'hex');
  out.write(id.slice(24), at, 'hex');
  return true;
}

function uuidString(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
