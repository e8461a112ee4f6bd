/**
 * The inbox (issue 27): entries written in a sender's transaction (`writeEntryIn`), and the three
 * mobile routes: a page (keyset over each owner's entry numbers, never an offset: order.ts), operations (idempotent
 * per operationId and per batch), renderings. What an installation sees: the entries of its own
 * inbox (scope INSTALLATION) and of the profile bound in its current generation (scope PROFILE),
 * neither deleted nor expired.
 *
 * Read state costs O(1) per operation: each owner's row keeps the unread count exactly, and
 * MARK_ALL_READ moves a watermark (every entry numbered up to it is read) and its version (read
 * states set before no longer count) instead of touching entries.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../platform/clock';
import { canonicalJson } from '../../platform/idempotency';
import { createGroupCommit } from '../../platform/store/group-commit';
import type { TxRunner, TxScope } from '../../platform/store/store';
import type { InstallationPrincipal } from '../installations/service';
import { bindingIn, type ProfileTx } from '../profiles/service';
import { EdgeErrors } from '../shared/errors';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import { localeChain, pick, renderingRevision, type InboxContent } from './content';
import type { InboxCursorCodec, SortOrder } from './cursor';
import { InboxErrors, InboxOperationError } from './errors';
import { isRead, mergePage, readAt } from './order';
import type { EntryChange, EntryState, InboxStore, ListedEntry, OwnerRow } from './store';
import { kept, type InboxEntryView } from './wire';

export type InboxTx = { inbox: InboxStore };
type Stores = InboxTx & ProfileTx;

export const INBOX_PAGE = { min: 1, max: 100, default: 20 } as const;

/**
 * The purge of expired entries (issue 27 point 6; docs/inbox.md "Expiry and purge"): entries
 * expired for more than a day, 500 per transaction, at most 20 transactions per run (then the
 * job runs again a second later). Expired entries are hidden at once; the grace only delays the
 * deletion of their rows.
 */
export const INBOX_PURGE = { graceMs: 86_400_000, batchSize: 500, maxBatches: 20 } as const;

export interface NewEntry {
  id: string;
  environmentId: string;
  scope: 'PROFILE' | 'INSTALLATION';
  /** The profile's id (PROFILE) or the installation's (INSTALLATION). */
  ownerId: string;
  key: string;
  /** The content, or its JSON text when the caller has made it already (a send measures its size). */
  content: InboxContent | string;
  sentAt: Date;
  /** Null: the entry never expires. */
  expiresAt: Date | null;
  sendId?: string | null;
  templateId?: string | null;
}

/**
 * Writes an entry in the caller's transaction (a send with its deliveries, an automation step):
 * numbered and counted unread under its owner's lock; with `notices`, the badges of the devices
 * that show it are told once the transaction commits.
 */
export async function writeEntryIn(tx: InboxTx & Partial<TxScope>, e: NewEntry, notices?: ChangeNotices): Promise<void> {
  if (notices?.inboxChanged) tx.afterCommit?.(() => notices.inboxChanged?.(e.environmentId, e.scope, e.ownerId));
  await tx.inbox.appendEntry({
    id: e.id.toLowerCase(),
    environmentId: e.environmentId,
    scope: e.scope,
    ownerId: e.ownerId,
    key: e.key,
    sendId: e.sendId ?? null,
    templateId: e.templateId ?? null,
    content: typeof e.content === 'string' ? e.content : JSON.stringify(e.content),
    sentAt: e.sentAt.toISOString(),
    sentMs: e.sentAt.getTime(),
    expiresMs: e.expiresAt ? e.expiresAt.getTime() : null,
  });
}

export interface InboxOperation {
  operationId: string;
  type: 'MARK_READ' | 'MARK_UNREAD' | 'DELETE' | 'MARK_ALL_READ';
  entryId?: string | null;
}

export function createInboxService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; cursors: InboxCursorCodec; notices?: ChangeNotices }) {
  const { store, clock, cursors } = deps;
  const notices = deps.notices ?? NO_NOTICES;

  /** The unread count of an installation's two inboxes: each owner's count less its expired unread entries not purged yet. */
  const unreadOf = (counters: Map<string, OwnerRow & { expiredUnread: number }>): number => {
    let n = 0;
    for (const o of counters.values()) n += o.unread - o.expiredUnread;
    return Math.max(0, n);
  };

  /** GET /v1/sdk/inbox. */
  async function page(p: InstallationPrincipal, q: { cursor?: string; pageSize?: number; sortOrder?: SortOrder }) {
    const now = clock.now();
    const nowMs = now.getTime();
    const sortOrder = q.sortOrder ?? 'NEWEST_FIRST';
    const size = q.pageSize ?? INBOX_PAGE.default;
    const binding = await bindingIn(store, p.environmentId, p.id);
    if (!binding) throw EdgeErrors.unauthorized();
    const newestFirst = sortOrder === 'NEWEST_FIRST';
    const installationId = p.id.toLowerCase();
    // Each owner's bound (exclusive): where the walk stands in its entry numbers.
    let bounds = newestFirst ? [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] : [0, 0];
    if (q.cursor !== undefined) {
      const pos = cursors.decode(q.cursor);
      if (!pos) throw InboxErrors.invalidCursor('is not a cursor this server issued');
      if (pos.installationId !== installationId) throw InboxErrors.invalidCursor('belongs to another installation');
      if (pos.generation !== binding.generation) throw InboxErrors.invalidCursor('belongs to an earlier binding generation');
      if (pos.sortOrder !== sortOrder) throw InboxErrors.invalidCursor(`was issued for ${pos.sortOrder}`);
      bounds = [pos.installationSeq, pos.profileSeq];
    }
    const owners: [string, string] = [installationId, binding.profileId];
    // Both owners' entries in one statement (one snapshot: src/engage/inbox/paging.test.ts), then their counters.
    const rows = await store.inbox.page([{ id: owners[0], bound: bounds[0] }, { id: owners[1], bound: bounds[1] }], nowMs, newestFirst, size + 1);
    const counters = await store.inbox.counters(owners, nowMs);
    const { taken, next } = mergePage(rows, owners, bounds, newestFirst, size);
    const hasMore = rows.length > size;
    // The page's rows carry no content: it is read only for entries whose payload in this locale
    // is not kept yet. On SQLite in the same read transaction (this turn's); on PostgreSQL an
    // entry can be purged or erased between the two statements: then the page is read again.
    const held = taken.map((e) => payloads.get(payloadKey(e.id, binding.locale)));
    const missing = taken.filter((_, i) => held[i] === undefined).map((e) => e.id);
    const contents = missing.length > 0 ? await store.inbox.contents(missing) : undefined;
    if (contents && contents.size < missing.length) return page(p, q);
    const chains = new Map<string, string[]>();
    return {
      entries: taken.map((e, i) => view(e, counters.get(e.ownerId), held[i] ?? payloadOf(e.id, contents!.get(e.id)!, binding.locale, chains))),
      nextCursor: hasMore ? cursors.encode({ installationId, generation: binding.generation, sortOrder, installationSeq: next[0], profileSeq: next[1] }) : null,
      hasMore,
      unreadCount: unreadOf(counters),
    };
  }

  /**
   * The payloads of recent entries in a locale, parsed once: an entry's content never changes
   * after it is written, and the pages of an inbox show the same entries to every device (bounded;
   * the oldest insertion goes first).
   */
  const payloads = new Map<string, Record<string, unknown>>();
  const PAYLOAD_CACHE = 20_000;

  const payloadKey = (id: string, locale: string) => `${id}\n${locale}`;

  /** An entry's payload in a locale, from its content (kept for the next page that shows it). */
  function payloadOf(id: string, text: string, locale: string, chains: Map<string, string[]>): Record<string, unknown> {
    const content = JSON.parse(text) as InboxContent;
    const chainKey = `${content.defaultLocale}\n${content.fallbackLocale ?? ''}`;
    let chain = chains.get(chainKey);
    if (!chain) chains.set(chainKey, (chain = localeChain(locale, content)));
    const payload = kept(pick(content.payloads, chain)?.value ?? {});
    if (payloads.size >= PAYLOAD_CACHE) payloads.delete(payloads.keys().next().value!);
    payloads.set(payloadKey(id, locale), payload);
    return payload;
  }

  function view(e: ListedEntry, o: OwnerRow | undefined, payload: Record<string, unknown>): InboxEntryView {
    return {
      id: e.id,
      key: e.key,
      payload,
      scope: e.scope,
      sentAt: e.sentAt,
      expiresAt: e.expiresMs === null ? null : new Date(e.expiresMs).toISOString(),
      readAt: readAt(e, o),
    };
  }

  /**
   * POST /v1/sdk/inbox/operations:batch: one transaction, the installation's row locked (a binding
   * transition waits), then its two owners' rows (in id order), so counts and states change together.
   */
  async function operate(p: InstallationPrincipal, batch: { batchId: string; generation: number; operations: InboxOperation[] }): Promise<{ replayed: boolean; body: string }> {
    const now = clock.now();
    const nowMs = now.getTime();
    const installationId = p.id.toLowerCase();
    const batchId = batch.batchId.toLowerCase();
    const digest = createHash('sha256').update(canonicalJson({ generation: batch.generation, operations: batch.operations })).digest('hex');
    return operateTx((tx) => operateIn(tx, p, batch, { now, nowMs, installationId, batchId, digest }));
  }

  /**
   * A batch's transaction. SQLite: batches arriving in one turn of the event loop share one
   * (platform/store/group-commit.ts, each in its own savepoint), as sends and ingest do: one
   * writer, so no lock order to keep. PostgreSQL: a transaction each, since a group would hold
   * several installations' and profiles' rows locked in an order another process's group could
   * cross (a deadlock, which only the send path retries).
   */
  type BatchWork = (tx: Stores & Partial<TxScope>) => Promise<{ replayed: boolean; body: string }>;
  const grouped = store.inbox.dialect === 'sqlite' ? createGroupCommit(store, (tx, work: BatchWork) => work(tx)) : undefined;
  const operateTx = (work: BatchWork) => (grouped ? grouped(work) : store.tx((tx) => work(tx)));

  async function operateIn(
    tx: Stores & Partial<TxScope>,
    p: InstallationPrincipal,
    batch: { batchId: string; generation: number; operations: InboxOperation[] },
    c: { now: Date; nowMs: number; installationId: string; batchId: string; digest: string },
  ): Promise<{ replayed: boolean; body: string }> {
    const { now, nowMs, installationId, batchId, digest } = c;
    // The installation's row first: the same batch sent twice at once (PostgreSQL, two
    // transactions) finds the first one's stored answer once the first commits, instead of both
    // reading none before the lock and the second failing on the batch's key (a 500).
    const binding = await bindingIn(tx, p.environmentId, installationId, true);
    if (!binding) throw EdgeErrors.unauthorized();
    const stored = await tx.inbox.storedBatch(installationId, batchId);
    if (stored !== undefined) {
      if (!stored.startsWith(`sha256:${digest}\n`)) throw InboxErrors.batchConflict();
      return { replayed: true, body: stored.slice(stored.indexOf('\n') + 1) };
    }
    const ownerIds = [installationId, binding.profileId].sort() as [string, string];
    const owners = new Map<string, OwnerRow | undefined>();
    for (const id of ownerIds) owners.set(id, await tx.inbox.owner(id, true));
    // The operation ids seen before in one statement, the new ones recorded in one, and each
    // owner's unread count written once with the batch's net change (bench/inbox.mjs: about a
    // third of a batch's statements).
    const seen = await tx.inbox.seenOperations(installationId, [...new Set(batch.operations.map((op) => op.operationId.toLowerCase()))]);
    const unread = new Map<string, number>();
    // The named entries' read states in one statement (the owners are locked: nothing changes them meanwhile); kept up to date below.
    const named = batch.generation === binding.generation ? [...new Set(batch.operations.flatMap((op) => (op.entryId ? [op.entryId.toLowerCase()] : [])))] : [];
    const entries = new Map((await tx.inbox.entryStates(named, ownerIds, nowMs)).map((e) => [e.id, e]));
    // Each changed entry's final state, written in one statement after the batch's operations.
    const changed = new Map<string, EntryChange>();
    const recorded: { operationId: string; status: 'ACCEPTED' | 'REJECTED' }[] = [];
    const results = [];
    for (const op of batch.operations) {
      const operationId = op.operationId.toLowerCase();
      if (seen.has(operationId)) {
        results.push({ operationId: op.operationId, status: 'DUPLICATE', errorCode: null, message: null });
        continue;
      }
      seen.add(operationId);
      const rejected = await apply(tx, op, batch.generation, binding.generation, ownerIds, owners, entries, changed, unread, nowMs, now.toISOString());
      recorded.push({ operationId, status: rejected ? 'REJECTED' : 'ACCEPTED' });
      results.push(rejected ? { operationId: op.operationId, status: 'REJECTED', ...rejected } : { operationId: op.operationId, status: 'ACCEPTED', errorCode: null, message: null });
    }
    await tx.inbox.writeStates([...changed.values()]);
    await tx.inbox.recordOperations(installationId, p.environmentId, recorded);
    for (const [id, delta] of unread) if (delta !== 0) await tx.inbox.addUnread(id, delta);
    const body = JSON.stringify({ batchId: batch.batchId, results, serverTime: now.toISOString() });
    await tx.inbox.storeBatch(installationId, batchId, p.environmentId, `sha256:${digest}\n${body}`, now.toISOString());
    // The badges of every device that shows these inboxes (issue 27 point 5), once committed.
    if (results.some((r) => r.status === 'ACCEPTED')) {
      (tx as Partial<TxScope>).afterCommit?.(() => {
        notices.inboxChanged?.(p.environmentId, 'INSTALLATION', installationId);
        notices.inboxChanged?.(p.environmentId, 'PROFILE', binding.profileId);
      });
    }
    return { replayed: false, body };
  }

  /**
   * One operation; undefined when accepted, the rejection otherwise. Keeps `owners` (the locked
   * counters) up to date, and `unread` (each owner's change to its count) and `changed` (each
   * entry's final state), both written by the caller once for the batch.
   */
  async function apply(
    tx: Stores,
    op: InboxOperation,
    generation: number,
    current: number,
    ownerIds: [string, string],
    owners: Map<string, OwnerRow | undefined>,
    entries: Map<string, EntryState>,
    changed: Map<string, EntryChange>,
    unread: Map<string, number>,
    nowMs: number,
    at: string,
  ): Promise<{ errorCode: string; message: string } | undefined> {
    if (generation !== current) return { errorCode: InboxOperationError.staleGeneration, message: `generation ${generation} is not the installation's current one (${current}); nothing was changed` };
    const entryId = op.entryId ?? null;
    if (op.type === 'MARK_ALL_READ') {
      if (entryId !== null) return { errorCode: InboxOperationError.entryIdNotAllowed, message: 'entryId: must be null for MARK_ALL_READ' };
      for (const id of ownerIds) {
        const o = owners.get(id);
        if (!o) continue;
        await tx.inbox.readAll(id, at);
        unread.set(id, 0);
        owners.set(id, { ...o, watermarkSeq: o.lastSeq, watermarkVersion: o.watermarkVersion + 1, unread: 0, watermarkAt: at });
      }
      return undefined;
    }
    if (entryId === null) return { errorCode: InboxOperationError.entryIdRequired, message: `entryId: is required for ${op.type}` };
    const e = entries.get(entryId.toLowerCase());
    if (!e) return { errorCode: InboxOperationError.entryNotFound, message: 'entryId: names no entry of this inbox' };
    const o = owners.get(e.ownerId);
    const version = o?.watermarkVersion ?? 0;
    const wasRead = isRead(e, o);
    const count = async (delta: number) => {
      if (delta === 0 || !o) return;
      unread.set(e.ownerId, (unread.get(e.ownerId) ?? 0) + delta);
      owners.set(e.ownerId, { ...o, unread: o.unread + delta });
    };
    if (op.type === 'MARK_READ') {
      const readMs = wasRead ? (e.readMs ?? nowMs) : nowMs;
      entries.set(e.id, { ...e, readState: 'READ', readVersion: version, readMs });
      changed.set(e.id, { ...e, readState: 'READ', readVersion: version, readMs, deleted: false });
      await count(wasRead ? 0 : -1);
    } else if (op.type === 'MARK_UNREAD') {
      entries.set(e.id, { ...e, readState: 'UNREAD', readVersion: version, readMs: null });
      changed.set(e.id, { ...e, readState: 'UNREAD', readVersion: version, readMs: null, deleted: false });
      await count(wasRead ? 1 : 0);
    } else {
      entries.delete(e.id);
      changed.set(e.id, { ...e, deleted: true });
      await count(wasRead ? 0 : -1);
    }
    return undefined;
  }

  /** POST /v1/sdk/inbox/renderings:resolve: the LAYOUT of each entry the installation can see, in its locale; the others omitted. */
  async function renderings(p: InstallationPrincipal, entryIds: readonly string[]) {
    // "unique uuids" (spec 01): a UUID is the same whatever the case of its letters (the schema's uniqueItems compares text).
    const seen = new Set<string>();
    entryIds.forEach((id, i) => {
      if (seen.has(id.toLowerCase())) throw EdgeErrors.invalid(`entryIds[${i}]: duplicates an earlier item`);
      seen.add(id.toLowerCase());
    });
    const nowMs = clock.now().getTime();
    const binding = await bindingIn(store, p.environmentId, p.id);
    if (!binding) throw EdgeErrors.unauthorized();
    const owners: [string, string] = [p.id.toLowerCase(), binding.profileId];
    const out = [];
    for (const id of entryIds) {
      const e = await store.inbox.entry(id.toLowerCase(), owners, nowMs);
      if (!e) continue;
      const content = JSON.parse(e.content) as InboxContent;
      const layout = pick(content.layouts, localeChain(binding.locale, content));
      if (!layout) continue;
      const surfaces = { SUMMARY: layout.value.SUMMARY, DETAIL: layout.value.DETAIL };
      out.push({
        entryId: e.id,
        renderer: 'LAYOUT' as const,
        revision: renderingRevision(e.id, layout.locale, surfaces),
        surfaces,
        expiresAt: e.expiresMs === null ? null : new Date(e.expiresMs).toISOString(),
      });
    }
    return { renderings: out };
  }

  /**
   * Deletes entries expired for more than the grace, in batches of one transaction each; each
   * owner's row locked (in id order, as operations lock them) while its unread count drops by its
   * purged entries that were unread, so `unread` stays exact: before the purge the read side
   * subtracts expired unread entries (store `counters`), after it they are in neither term.
   */
  async function purgeExpired(opts: { graceMs?: number; batchSize?: number; maxBatches?: number } = {}): Promise<{ purged: number; more: boolean }> {
    const { graceMs, batchSize, maxBatches } = { ...INBOX_PURGE, ...opts };
    let purged = 0;
    for (let b = 0; b < maxBatches; b++) {
      const cutoffMs = clock.now().getTime() - graceMs;
      const found = await store.tx(async (tx) => {
        const rows = await tx.inbox.expiredBefore(cutoffMs, batchSize);
        const byOwner = new Map<string, string[]>();
        for (const r of rows) byOwner.set(r.ownerId, [...(byOwner.get(r.ownerId) ?? []), r.id]);
        for (const ownerId of [...byOwner.keys()].sort()) {
          const ids = byOwner.get(ownerId)!;
          const o = await tx.inbox.owner(ownerId, true);
          const unread = o ? await tx.inbox.unreadAmong(o, cutoffMs, ids) : 0;
          purged += await tx.inbox.deleteExpired(ownerId, cutoffMs, ids);
          if (unread > 0) await tx.inbox.addUnread(ownerId, -unread);
        }
        return rows.length;
      });
      if (found < batchSize) return { purged, more: false };
    }
    return { purged, more: true };
  }

  /** The installation's unread count now: its own inbox's and its current profile's (the live badge). */
  async function unreadCount(environmentId: string, installationId: string): Promise<number | undefined> {
    const binding = await bindingIn(store, environmentId, installationId);
    if (!binding) return undefined;
    return unreadOf(await store.inbox.counters([installationId.toLowerCase(), binding.profileId], clock.now().getTime()));
  }

  return { page, operate, renderings, purgeExpired, unreadCount };
}

export type InboxService = ReturnType<typeof createInboxService>;
