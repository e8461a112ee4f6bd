import { createHash } from 'node:crypto';

/**
 * What an inbox entry holds (issue 27), written once by whoever creates it (a transactional send
 * of a template with an inbox part; automations later): its payload per locale and, when it can
 * be rendered, a LAYOUT per locale (SUMMARY and DETAIL surfaces), with the locales to fall back to.
 * Stored as JSON in `inbox_entries.content`; read per installation locale.
 */
export interface InboxContent {
  /** Locale → the entry's payload (free JSON object), variables already substituted. */
  payloads: Record<string, Record<string, unknown>>;
  /** Locale → LAYOUT surfaces; absent: the entry has no rendering (headless only). */
  layouts?: Record<string, { SUMMARY: Record<string, unknown>; DETAIL: Record<string, unknown> }>;
  defaultLocale: string;
  fallbackLocale?: string;
}

/**
 * The locales to try for an installation, in order: its own (`fr-CA`), its language (`fr`), the
 * content's default, then its fallback (the template's locale resolution, spec 01 "Transactional
 * send"). Compared case-insensitively.
 */
export function localeChain(installationLocale: string, content: Pick<InboxContent, 'defaultLocale' | 'fallbackLocale'>): string[] {
  const chain: string[] = [];
  const add = (l: string | undefined) => {
    if (l && !chain.some((c) => c.toLowerCase() === l.toLowerCase())) chain.push(l);
  };
  add(installationLocale);
  add(installationLocale.split(/[-_]/)[0]);
  add(content.defaultLocale);
  add(content.fallbackLocale);
  return chain;
}

/** The first of `chain` that `byLocale` holds (case-insensitively), with its value. */
export function pick<V>(byLocale: Record<string, V> | undefined, chain: readonly string[]): { locale: string; value: V } | undefined {
  if (!byLocale) return undefined;
  const keys = Object.keys(byLocale);
  for (const want of chain) {
    const k = keys.find((x) => x.toLowerCase() === want.toLowerCase());
    if (k !== undefined) return { locale: k, value: byLocale[k] };
  }
  return undefined;
}

/** A rendering's revision: from its content, so it changes exactly when the rendering does (a positive int64). */
export function renderingRevision(entryId: string, locale: string, surfaces: unknown): number {
  const h = createHash('sha256').update(entryId).update('\0').update(locale).update('\0').update(JSON.stringify(surfaces)).digest();
  // 48 bits: exact in a JavaScript number, never 0.
  return h.readUIntBE(0, 6) + 1;
}
