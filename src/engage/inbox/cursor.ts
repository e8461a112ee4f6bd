import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../platform/crypto';

/**
 * The inbox page cursor (issue 27 point 2): a position in the inbox's total order (sent time,
 * then entry id), bound to the installation, its generation and the sort order, signed with a key
 * derived from the master key (every process accepts every other's). Opaque to the client; it
 * carries only the last entry's time and id, which the page already showed.
 *
 * Wire form (base64url, no padding): version 1 | sort (0 NEWEST_FIRST, 1 OLDEST_FIRST) | installation
 * (16) | generation (8, big-endian) | sent ms (8) | entry id (16) | HMAC-SHA256 truncated to 16.
 */
export const INBOX_CURSOR_LABEL = 'engage inbox cursor v1';
export const SORT_ORDERS = ['NEWEST_FIRST', 'OLDEST_FIRST'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface InboxPosition {
  installationId: string;
  generation: number;
  sortOrder: SortOrder;
  sentMs: number;
  entryId: string;
}

const BODY = 1 + 1 + 16 + 8 + 8 + 16;
const TAG = 16;
/** The length of every cursor (88 characters). */
export const INBOX_CURSOR_LENGTH = Math.ceil(((BODY + TAG) * 4) / 3);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');
const uuidOf = (b: Buffer) => {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

export function createInboxCursorCodec(masterKey: Buffer) {
  // A KeyObject made once: createHmac given a Buffer prepares a new key on every call (about a
  // tenth of a page's CPU in bench/inbox.mjs's profiles, as b5 found for the sync's cursor).
  const key = createSecretKey(deriveKey(masterKey, INBOX_CURSOR_LABEL));
  const tagOf = (body: Buffer) => createHmac('sha256', key).update(body).digest().subarray(0, TAG);
  return {
    encode(p: InboxPosition): string {
      if (!UUID.test(p.installationId) || !UUID.test(p.entryId)) throw new TypeError('ids must be UUIDs');
      const body = Buffer.alloc(BODY);
      body[0] = 1;
      body[1] = p.sortOrder === 'NEWEST_FIRST' ? 0 : 1;
      uuidBytes(p.installationId).copy(body, 2);
      body.writeBigUInt64BE(BigInt(p.generation), 18);
      body.writeBigUInt64BE(BigInt(p.sentMs), 26);
      uuidBytes(p.entryId).copy(body, 34);
      return Buffer.concat([body, tagOf(body)]).toString('base64url');
    },
    /** The position, if the cursor is authentic; never throws. Binding to the installation, generation and order is the caller's comparison. */
    decode(cursor: string): InboxPosition | undefined {
      if (typeof cursor !== 'string' || cursor.length !== INBOX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
      const bytes = Buffer.from(cursor, 'base64url');
      if (bytes.length !== BODY + TAG || bytes.toString('base64url') !== cursor) return undefined;
      const body = bytes.subarray(0, BODY);
      if (!timingSafeEqual(tagOf(body), bytes.subarray(BODY)) || body[0] !== 1 || body[1] > 1) return undefined;
      const generation = body.readBigUInt64BE(18);
      const sentMs = body.readBigUInt64BE(26);
      if (generation > BigInt(Number.MAX_SAFE_INTEGER) || sentMs > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
      return {
        installationId: uuidOf(body.subarray(2, 18)),
        generation: Number(generation),
        sortOrder: SORT_ORDERS[body[1]],
        sentMs: Number(sentMs),
        entryId: uuidOf(body.subarray(34, 50)),
      };
    },
  };
}

export type InboxCursorCodec = ReturnType<typeof createInboxCursorCodec>;
