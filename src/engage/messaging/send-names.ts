/**
 * Whom a send row names, and the row with some of them erased (send-erasure.ts says why): pure
 * functions over the row's recipient and stored answer, which the store uses to index a send
 * (push_send_recipients) and erasure uses to redact it. Kept out of send-erasure.ts, which
 * drives the store, so that the store does not import its own caller.
 */

/** The columns of a push_sends row that name installations or profiles. */
export interface SendNames {
  recipientType: string;
  recipientValue: string;
  response: string;
}

export const ERASED_ID = '00000000-0000-0000-0000-000000000000';

interface StoredAnswer {
  renderedTitle?: string;
  renderedBody?: string;
  renderedDeepLink?: string;
  renderedCustomData?: Record<string, unknown>;
  diagnostics?: { installationId?: string; deliveryId?: string | null }[];
}

const NAMES_AN_ID = new Set(['INSTALLATION_ID', 'PROFILE']);

/** The installation and profile ids a send row names: how erasure finds it (push_send_recipients). */
export function idsNamedBy(send: SendNames): string[] {
  const ids = new Set<string>();
  if (NAMES_AN_ID.has(send.recipientType)) ids.add(send.recipientValue);
  for (const d of (JSON.parse(send.response) as StoredAnswer).diagnostics ?? []) if (d.installationId) ids.add(d.installationId);
  ids.delete(ERASED_ID);
  return [...ids];
}

/** The send's recipient value and stored answer with `erased` redacted; undefined when it names none of them. */
export function redactSend(send: SendNames, erased: ReadonlySet<string>): { recipientValue: string; response: string } | undefined {
  const answer = JSON.parse(send.response) as StoredAnswer;
  let changed = false;
  for (const d of answer.diagnostics ?? [])
    if (d.installationId && erased.has(d.installationId)) {
      d.installationId = ERASED_ID;
      d.deliveryId = null;
      changed = true;
    }
  let recipientValue = send.recipientValue;
  if (NAMES_AN_ID.has(send.recipientType) && erased.has(recipientValue)) {
    recipientValue = ERASED_ID;
    if (answer.renderedTitle !== undefined) answer.renderedTitle = '';
    if (answer.renderedBody !== undefined) answer.renderedBody = '';
    if (answer.renderedDeepLink !== undefined) answer.renderedDeepLink = '';
    if (answer.renderedCustomData !== undefined) answer.renderedCustomData = {};
    changed = true;
  }
  return changed ? { recipientValue, response: JSON.stringify(answer) } : undefined;
}
