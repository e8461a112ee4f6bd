/**
 * The cap on distinct keys per installation and profile (docs/decisions.md "Sync reads,
 * bounded" and "An ingest cap on distinct keys"): an attribute or tag operation that would make
 * its owner hold more than MAX_LIVE_KEYS live keys of a kind (installation attributes, profile
 * attributes, profile tags) is REJECTED `KEY_LIMIT_EXCEEDED` (spec 01 names no limit; its
 * "attribute set properties: at most 200" bounds one operation only). The cap is the sync's own
 * read bound, so a sync never leaves out a key the server holds.
 *
 * Cheap in the common case: the owner's live count is read once per batch and kind; each
 * operation's keys are counted as new while the total stays under the cap; only near it are the
 * keys looked up to tell the new from those already held. Removals in the same batch are not
 * credited (their last-writer-wins order is by occurredAt, not by position): the SDK's next batch
 * has the room. Keys set by an operation and removed by it too are not counted.
 */
import { liveKeyCountIn, liveKeysAmongIn, SYNC_READ_LIMIT, type KeyedKind, type ProfileTx } from '../profiles/service';

export const MAX_LIVE_KEYS = SYNC_READ_LIMIT;

interface Owner {
  held: number;
  /** Keys this batch's accepted operations add, known not to be held (looked up). */
  fresh: Set<string>;
  /** Keys this batch's accepted operations add, not looked up yet (counted as new). */
  unchecked: Set<string>;
}

export function createKeyBudget(tx: ProfileTx) {
  const owners = new Map<string, Owner>();
  const ownerOf = async (kind: KeyedKind, id: string): Promise<Owner> => {
    const k = `${kind}\n${id}`;
    let o = owners.get(k);
    if (!o) owners.set(k, (o = { held: await liveKeyCountIn(tx, kind, id), fresh: new Set(), unchecked: new Set() }));
    return o;
  };
  return {
    /**
     * Whether an operation adding `keys` to the owner stays within the cap; when it does, its keys
     * are counted for the rest of the batch. Returns the count it would reach when it does not.
     */
    async admit(kind: KeyedKind, ownerId: string, keys: readonly string[]): Promise<{ ok: true } | { ok: false; held: number }> {
      if (keys.length === 0) return { ok: true };
      const o = await ownerOf(kind, ownerId);
      const adds = keys.filter((k) => !o.fresh.has(k) && !o.unchecked.has(k));
      if (o.held + o.fresh.size + o.unchecked.size + adds.length <= MAX_LIVE_KEYS) {
        for (const k of adds) o.unchecked.add(k);
        return { ok: true };
      }
      // Near the cap: which of the counted and the new keys the owner already holds.
      const ask = [...o.unchecked, ...adds];
      const held = await liveKeysAmongIn(tx, kind, ownerId, ask);
      for (const k of o.unchecked) if (!held.has(k)) o.fresh.add(k);
      o.unchecked.clear();
      const news = adds.filter((k) => !held.has(k));
      if (o.held + o.fresh.size + news.length > MAX_LIVE_KEYS) return { ok: false, held: o.held + o.fresh.size };
      for (const k of news) o.fresh.add(k);
      return { ok: true };
    },
  };
}
