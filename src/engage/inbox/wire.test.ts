import { describe, expect, it } from 'vitest';
import { inboxPageText, kept, type InboxEntryView } from './wire';

const entry = (over: Partial<InboxEntryView>): InboxEntryView => ({
  id: '0190b5e7-a524-7c1d-8f0e-9a3b2c1d0e9f',
  key: 'order.shipped',
  payload: { title: 'Shipped', n: 3 },
  scope: 'PROFILE',
  sentAt: '2026-11-27T10:00:00.000Z',
  expiresAt: null,
  readAt: null,
  ...over,
});

describe('inbox page text', () => {
  it('is JSON.stringify of the page, kept payloads or not, strings needing escapes included', () => {
    const shared = kept({ title: 'Café "deluxe" \u2028 \\ ✓', nested: { list: [1, null, true] } });
    const pages = [
      { entries: [], nextCursor: null, hasMore: false, unreadCount: 0 },
      {
        entries: [
          entry({ payload: shared }),
          entry({ id: '0190b5e7-a524-7c1d-8f0e-9a3b2c1d0ea0', key: 'k"\n', payload: {}, scope: 'INSTALLATION', expiresAt: '2026-12-01T00:00:00.000Z', readAt: '2026-11-27T10:05:00.000Z' }),
          entry({ payload: shared }),
        ],
        nextCursor: 'AgAAAAAA_-x',
        hasMore: true,
        unreadCount: 12_345,
      },
    ];
    for (const page of pages) expect(inboxPageText(page)).toBe(JSON.stringify(page));
    expect(Object.isFrozen(shared)).toBe(true);
  });
});
