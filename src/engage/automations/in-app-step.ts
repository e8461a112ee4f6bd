import type { InboxContent } from '../inbox/content';
import type { MessageDefinition } from '../in-app/schemas';

/**
 * The inbox entry an in-app step saves (issue 28, `saveToInbox`): the message's content (its first
 * variant's when it has variants) per locale: the payload names the message, the LAYOUT shows its
 * title in the SUMMARY and the rest in the DETAIL.
 */
export function inboxContentOf(d: MessageDefinition): InboxContent {
  const content = d.content ?? d.variants?.[0]?.content ?? {};
  const payloads: InboxContent['payloads'] = {};
  const layouts: NonNullable<InboxContent['layouts']> = {};
  for (const [locale, l] of Object.entries(content)) {
    payloads[locale] = { messageId: d.key, title: l.title, body: l.body };
    layouts[locale] = { SUMMARY: { title: l.title }, DETAIL: { title: l.title, body: l.body, ...(l.imageUrl ? { imageUrl: l.imageUrl } : {}), buttons: l.buttons ?? [] } };
  }
  return { payloads, layouts, defaultLocale: d.defaultLocale, ...(d.fallbackLocale ? { fallbackLocale: d.fallbackLocale } : {}) };
}
