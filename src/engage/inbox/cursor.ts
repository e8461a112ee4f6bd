import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../platform/crypto';
import { createRecentMap } from '../../platform/recent-map';

/**
 * The inbox page cursor (issue 27 point 2): where a walk stands in each of the two inboxes an
 * installation sees (its own and its current profile's), as entry numbers: each owner numbers its
 * entries under its row lock, so in commit order, and an entry committed after a page was read
 * always gets a number beyond that page's (docs/decisions.md "The inbox's commit order"). Bound to
 * the installation, its generation (which fixes the profile) and the sort order, signed with a key
 * derived from the master key (every process accepts every other's). Opaque to the client.
 *
 * The bounds are exclusive: NEWEST_FIRST goes on below them, OLDEST_FIRST above them.
 *
 * Wire form (base64url, no padding): version 2 | sort (0 NEWEST_FIRST, 1 OLDEST_FIRST) | installation
 * (16) | generation (8, big-endian) | installation bound (8) | profile bound (8) | HMAC-SHA256
 * truncated to 16. Version 1 (sent time and entry id) is no longer accepted: a client holding one
 * gets invalid_cursor and starts again from the first page.
 */
export const INBOX_CURSOR_LABEL = 'engage inbox cursor v1';
export const SORT_ORDERS = ['NEWEST_FIRST', 'OLDEST_FIRST'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface InboxPosition {
  installationId: string;
  generation: number;
  sortOrder: SortOrder;
  /** The walk's bound in the installation's own inbox (scope INSTALLATION). */
  installationSeq: number;
  /** The walk's bound in the profile's inbox (scope PROFILE). */
  profileSeq: number;
}

const VERSION = 2;
const BODY = 1 + 1 + 16 + 8 + 8 + 8;
const TAG = 16;
/** The length of every cursor (78 characters). */
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
  // The cursors this process issued or verified lately, with their positions (frozen): a client
  // paging on sends back the cursor of the page it was just given, answered without the HMAC.
  const known = createRecentMap<string, InboxPosition>(KNOWN_PER_GENERATION);
  // And the other way: the text of each position issued lately.
  const issued = createRecentMap<string, string>(KNOWN_PER_GENERATION);
  return {
    encode(p: InboxPosition): string {
      // A position issued lately is the same text (a device refreshing its first page, another
      // walking the pages again): no second HMAC.
      const positionKey = `${p.installationId}|${p.generation}|${p.sortOrder}|${p.installationSeq}|${p.profileSeq}`;
      const again = issued.get(positionKey);
      if (again !== undefined) return again;
      if (!UUID.test(p.installationId)) throw new TypeError('the installation id must be a UUID');
      const body = Buffer.alloc(BODY);
      body[0] = VERSION;
      body[1] = p.sortOrder === 'NEWEST_FIRST' ? 0 : 1;
      uuidBytes(p.installationId).copy(body, 2);
      body.writeBigUInt64BE(BigInt(p.generation), 18);
      body.writeBigUInt64BE(BigInt(p.installationSeq), 26);
      body.writeBigUInt64BE(BigInt(p.profileSeq), 34);
      const text = Buffer.concat([body, tagOf(body)]).toString('base64url');
      const position = positionOf(body);
      if (position) {
        known.put(text, position);
        issued.put(positionKey, text);
      }
      return text;
    },
    /** The position, if the cursor is authentic; never throws. Binding to the installation, generation and order is the caller's comparison. */
    decode(cursor: string): InboxPosition | undefined {
      if (typeof cursor !== 'string' || cursor.length !== INBOX_CURSOR_LENGTH) return undefined;
      const held = known.get(cursor);
      if (held) return held;
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
      const bytes = Buffer.from(cursor, 'base64url');
      if (bytes.length !== BODY + TAG || bytes.toString('base64url') !== cursor) return undefined;
      const body = bytes.subarray(0, BODY);
      if (!timingSafeEqual(tagOf(body), bytes.subarray(BODY))) return undefined;
      const position = positionOf(body);
      if (position) known.put(cursor, position);
      return position;
    },
  };
}

/** How many cursors a generation of each of the codec's two caches holds (two generations each: at most ~12 MB in all). */
const KNOWN_PER_GENERATION = 16_384;

/** The position an authentic body holds, frozen; undefined if it is not version 2's. */
function positionOf(body: Buffer): InboxPosition | undefined {
  if (body[0] !== VERSION || body[1] > 1) return undefined;
  const numbers = [18, 26, 34].map((at) => body.readBigUInt64BE(at));
  if (numbers.some((n) => n > BigInt(Number.MAX_SAFE_INTEGER))) return undefined;
  return Object.freeze({
    installationId: uuidOf(body.subarray(2, 18)),
    generation: Number(numbers[0]),
    sortOrder: SORT_ORDERS[body[1]],
    installationSeq: Number(numbers[1]),
    profileSeq: Number(numbers[2]),
  });
}

export type InboxCursorCodec = ReturnType<typeof createInboxCursorCodec>;
