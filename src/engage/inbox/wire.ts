/**
 * An inbox page's JSON text (GET /v1/sdk/inbox): exactly what `JSON.stringify` makes of the page
 * (same members, same order; wire.test.ts), with each entry's payload text made once. A payload
 * is one object per entry and locale, kept by the service while the entry is shown (an entry's
 * content never changes): `kept` freezes it and keeps its text beside it for as long as it lives.
 */

/** An entry as a page shows it (spec 01 InboxEntry). */
export interface InboxEntryView {
  id: string;
  key: string;
  payload: Record<string, unknown>;
  scope: 'PROFILE' | 'INSTALLATION';
  sentAt: string;
  expiresAt: string | null;
  readAt: string | null;
}

const texts = new WeakMap<object, string>();

/** Freezes `payload` and keeps its JSON text: it is shared by every page that shows its entry. */
export function kept<T extends Record<string, unknown>>(payload: T): T {
  texts.set(payload, JSON.stringify(payload));
  return Object.freeze(payload);
}

const str = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

/** `JSON.stringify(page)`, with kept payloads' texts reused. */
export function inboxPageText(page: { entries: InboxEntryView[]; nextCursor: string | null; hasMore: boolean; unreadCount: number }): string {
  let entries = '';
  for (const e of page.entries) {
    const text =
      `{"id":${str(e.id)},"key":${str(e.key)},"payload":${texts.get(e.payload) ?? JSON.stringify(e.payload)},"scope":${str(e.scope)}` +
      `,"sentAt":${str(e.sentAt)},"expiresAt":${str(e.expiresAt)},"readAt":${str(e.readAt)}}`;
    entries += entries === '' ? text : `,${text}`;
  }
  return `{"entries":[${entries}],"nextCursor":${str(page.nextCursor)},"hasMore":${page.hasMore},"unreadCount":${JSON.stringify(page.unreadCount)}}`;
}
