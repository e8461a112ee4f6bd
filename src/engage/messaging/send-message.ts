/**
 * What a send delivers: a template rendered for a locale and variables, checked against the
 * provider payload's bound, and the delivery message made of it (sends, test sends, previews).
 */
import { apnsPayload } from './apns';
import { MessagingErrors } from './errors';
import type { DeliveryMessage } from './message';
import { render, type Rendered, type resolveVariables, type TemplateDefinition } from './render';

const MAX_PAYLOAD = 4096;
export const NIL_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Renders as a send does, with the send's payload check (the APNs payload, the larger, sized
 * with a nil delivery id): what previews and test sends share with sends.
 */
export function renderChecked(def: TemplateDefinition, locale: string | undefined, vars: ReturnType<typeof resolveVariables>): Rendered {
  const rendered = render(def, locale, vars);
  // With an inbox part, the payload carries the entry's id (sized here with a nil one).
  const size = Buffer.byteLength(JSON.stringify(apnsPayload(messageOf(def, rendered, def.inbox ? NIL_ID : undefined), NIL_ID)));
  if (size > MAX_PAYLOAD) throw MessagingErrors.messageTooLarge(size);
  return rendered;
}

export function messageOf(def: TemplateDefinition, r: Rendered, inboxEntryId?: string): DeliveryMessage {
  return {
    title: r.title,
    body: r.body,
    deepLink: r.deepLink,
    data: r.customData,
    priority: def.priority,
    ...(def.collapseId !== undefined ? { collapseId: def.collapseId } : {}),
    ...(inboxEntryId !== undefined ? { inboxEntryId } : {}),
  };
}
