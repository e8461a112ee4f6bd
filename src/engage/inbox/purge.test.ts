import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, itSqlite, type Harness } from '../../../test/helpers/harness';
import { bootstrap, setupEnvironment, type Session } from '../../../test/fixtures/engage';
import { inboxOps, inboxPage, putEntry } from '../../../test/fixtures/inbox';
import { backgroundJobs, JOBS } from '../../jobs';
import { silentLogger } from '../../platform/logger';
import type { Sql } from '../../platform/store/sql';
import { INBOX_PURGE } from './service';
import { createInboxStore } from './store';

/** Issue 27 point 6: expired entries are purged by a durable job, the unread count exact before and after. */
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => h.close());

const MINUTE = 60_000;
const advanceMs = (ms: number) => h.clock.advance(ms / 1000);
const profileOf = async (s: Session) => (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;
const stored = async () => Number((await h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM inbox_entries'))!.n);
const counter = async (ownerId: string) => Number((await h.sql.get<{ n: number }>('SELECT unread AS n FROM inbox_owners WHERE owner_id = ?', [ownerId]))!.n);

describe('the purge of expired inbox entries', () => {
  it('hides expired entries at once, deletes them after the grace, and keeps unreadCount exact (read, unread, deleted, both scopes)', async () => {
    const env = await setupEnvironment(h);
    const e = env.environment.id;
    const s = await bootstrap(h, env.app.appKey);
    const profile = await profileOf(s);
    const soon = () => new Date(h.clock.now().getTime() + MINUTE);
    const P = { environmentId: e, scope: 'PROFILE' as const, ownerId: profile };
    const I = { environmentId: e, scope: 'INSTALLATION' as const, ownerId: s.installationId };
    const unreadExpiring = await putEntry(h, { ...P, expiresAt: soon() });
    const read = await putEntry(h, { ...P, expiresAt: soon() });
    const deleted = await putEntry(h, { ...P, expiresAt: soon() });
    await putEntry(h, { ...I, expiresAt: soon() });
    const lasting = await putEntry(h, { ...P, expiresAt: null });
    const later = await putEntry(h, { ...I, expiresAt: new Date(h.clock.now().getTime() + 3 * 86_400_000) });
    expect((await inboxOps(h, s, 0, [{ type: 'MARK_READ', entryId: read }, { type: 'DELETE', entryId: deleted }])).status).toBe(202);
    expect((await inboxPage(h, s)).unreadCount).toBe(4);

    // Expired: gone from the page and the count at once, rows still there.
    advanceMs(MINUTE + 1);
    let page = await inboxPage(h, s);
    expect(page.entries.map((x) => x.id).sort()).toEqual([lasting, later].sort());
    expect(page.unreadCount).toBe(2);
    // Within the grace: nothing purged.
    expect(await h.services.engage.inbox.purgeExpired()).toEqual({ purged: 0, more: false });
    expect(await stored()).toBe(6);

    // Past the grace: the four expired rows go (the deleted one too); each owner's counter drops by its unread ones.
    advanceMs(INBOX_PURGE.graceMs);
    expect(await h.services.engage.inbox.purgeExpired()).toEqual({ purged: 4, more: false });
    expect(await stored()).toBe(2);
    expect(await h.sql.get('SELECT id FROM inbox_entries WHERE id = ?', [unreadExpiring])).toBeUndefined();
    expect([await counter(profile), await counter(s.installationId)]).toEqual([1, 1]);
    page = await inboxPage(h, s);
    expect(page.unreadCount).toBe(2);
    // The count stays exact after: read-all, then a new entry, then the later one expiring unread and purged.
    expect((await inboxOps(h, s, 0, [{ type: 'MARK_UNREAD', entryId: lasting }])).status).toBe(202);
    expect((await inboxPage(h, s)).unreadCount).toBe(2);
    expect((await inboxOps(h, s, 0, [{ type: 'MARK_ALL_READ', entryId: null }])).status).toBe(202);
    expect((await inboxPage(h, s)).unreadCount).toBe(0);
    await putEntry(h, { ...I, expiresAt: null });
    await putEntry(h, { ...I, expiresAt: soon() });
    expect((await inboxPage(h, s)).unreadCount).toBe(2);
    advanceMs(3 * 86_400_000 + INBOX_PURGE.graceMs);
    expect((await inboxPage(h, s)).unreadCount).toBe(1);
    // `later` was read (read-all) when it expired: its purge leaves the counter; the other expired one was unread.
    expect(await h.services.engage.inbox.purgeExpired()).toEqual({ purged: 2, more: false });
    expect((await inboxPage(h, s)).unreadCount).toBe(1);
    expect([await counter(profile), await counter(s.installationId)]).toEqual([0, 1]);
  });

  it('works in batches: a run stops at its budget and says more is left; the leased job runs it and asks to run again', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey);
    const owner = { environmentId: env.environment.id, scope: 'INSTALLATION' as const, ownerId: s.installationId };
    for (let i = 0; i < 7; i++) await putEntry(h, { ...owner, expiresAt: new Date(h.clock.now().getTime() + MINUTE) });
    advanceMs(MINUTE + INBOX_PURGE.graceMs + 1);
    expect(await h.services.engage.inbox.purgeExpired({ batchSize: 2, maxBatches: 2 })).toEqual({ purged: 4, more: true });
    expect(await counter(s.installationId)).toBe(3);
    const job = backgroundJobs(h.services, silentLogger).find((j) => j.name === JOBS.purgeInbox)!;
    expect(await job.run()).toBeUndefined();
    expect(await stored()).toBe(0);
    expect(await counter(s.installationId)).toBe(0);
    expect((await inboxPage(h, s)).unreadCount).toBe(0);
  });

  itSqlite('the expired unread count and the purge read only expiring entries, through the partial expiry indexes (migration 0040)', async () => {
    const plans: string[] = [];
    const explaining = { dialect: 'sqlite', all: async (sql: string, params: unknown[]) => { plans.push((await h.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((p) => p.detail).join(' | ')); return []; } } as unknown as Sql;
    await createInboxStore(explaining).counters(['a', 'b'], 0);
    await createInboxStore(explaining).expiredBefore(0, 10);
    expect(plans[0]).toMatch(/SEARCH e USING INDEX inbox_entries_owner_expiry \(owner_id=\? AND expires_ms<\?\)/);
    expect(plans[1]).toMatch(/^SEARCH inbox_entries USING INDEX inbox_entries_expiry \(expires_ms<\?\)/);
    const defs = await h.sql.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ('inbox_entries_owner_expiry', 'inbox_entries_expiry') ORDER BY name");
    expect(defs.map((d) => [d.name, /WHERE expires_ms IS NOT NULL$/.test(d.sql)])).toEqual([['inbox_entries_expiry', true], ['inbox_entries_owner_expiry', true]]);
  });
});
