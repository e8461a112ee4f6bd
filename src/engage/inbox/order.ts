/**
 * The inbox's order and read state, pure: whether an entry is read under its owner's counters,
 * and a page merged from the installation's and the profile's entries, each in its commit order.
 */
import type { ListedEntry, OwnerRow } from './store';

/** Whether `e` is read under its owner's counters. */
export function isRead(e: Pick<ListedEntry, 'seq' | 'readState' | 'readVersion'>, o: OwnerRow | undefined): boolean {
  const version = o?.watermarkVersion ?? 0;
  if (e.readState !== null && e.readVersion === version) return e.readState === 'READ';
  return e.seq <= (o?.watermarkSeq ?? 0);
}

/** When `e` was read (its own mark, or the watermark that reads it), or null while unread. */
export function readAt(e: ListedEntry, o: OwnerRow | undefined): string | null {
  if (!isRead(e, o)) return null;
  if (e.readState === 'READ' && e.readVersion === (o?.watermarkVersion ?? 0) && e.readMs !== null) return new Date(e.readMs).toISOString();
  return o?.watermarkAt ?? null;
}

/**
 * A page out of the two owners' entries (each owner's in the order of its numbers, which is its
 * commit order): the two lists merged by sent time (then scope, then number: the same order both
 * ways while each owner's times follow its numbers), the first `size` taken; and the bounds the next
 * page starts from. An owner's bound moves to the last of its entries taken. Newest first, an owner
 * none of whose entries were taken is bounded just above the newest of its entries read (none read:
 * at 0), so entries it gets after this page are not shown in the middle of the walk: they wait for
 * the next walk from the top, as those of the other owner do. Oldest first, its bound stays, and
 * whatever it gets later comes after what the walk has shown. Either way no entry is skipped or
 * repeated, in whatever order concurrent writers commit (docs/decisions.md "The inbox's commit order").
 */
export function mergePage<E extends ListedEntry>(rows: readonly E[], owners: readonly [string, string], bounds: readonly number[], newestFirst: boolean, size: number): { taken: E[]; next: [number, number] } {
  const dir = newestFirst ? -1 : 1;
  const lists = owners.map((id) => rows.filter((r) => r.ownerId === id).sort((a, b) => (a.seq - b.seq) * dir));
  const before = (a: E, b: E) => (a.sentMs - b.sentMs || (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.seq - b.seq)) * dir < 0;
  const taken: E[] = [];
  const at = [0, 0];
  while (taken.length < size) {
    const [a, b] = [lists[0][at[0]], lists[1][at[1]]];
    if (!a && !b) break;
    const k = !b || (a && before(a, b)) ? 0 : 1;
    taken.push(lists[k][at[k]++]);
  }
  const next = [0, 1].map((k) => {
    if (at[k] > 0) return lists[k][at[k] - 1].seq;
    if (!newestFirst) return bounds[k];
    return lists[k].length ? lists[k][0].seq + 1 : 0;
  }) as [number, number];
  return { taken, next };
}
