/**
 * The sync response's JSON text (issue 26 "Performance": a full snapshot is ~190 documents,
 * ~29 KB): exactly the text `JSON.stringify` makes of the SyncResponse (same members, same
 * order; wire.test.ts), spliced from pieces. A payload shared by every installation it is sent
 * to (a push channel's definition, a flag's payload for one evaluation outcome: documents.ts)
 * is marked `shared` when it is made: frozen, and its JSON text made once and kept beside it in a
 * WeakMap for as long as the object lives. Those objects belong to the definitions compiled for
 * one definitions revision (definitions.ts), so the texts are keyed by what the snapshot read,
 * never deciding it; a new revision makes new objects and the old texts go with the old ones.
 * Any other payload is serialised for the response that carries it.
 */
import { SDK_MODULES, type SdkModule } from './cursor';
import type { SyncResponse } from './schemas';

const texts = new WeakMap<object, string>();

/** Marks `payload` as shared between responses and never mutated again (frozen): its JSON text is made once and kept. */
export function shared<T extends Record<string, unknown>>(payload: T): T {
  texts.set(payload, JSON.stringify(payload));
  return Object.freeze(payload);
}

/** A document's opening up to its key, per module (the module names need no escaping: an enum of capitals and _). */
const OPENING = Object.fromEntries(SDK_MODULES.map((m) => [m, `{"module":${JSON.stringify(m)},"key":`])) as Record<SdkModule, string>;

/** A revision as JSON writes it: an integer (a finite number; Int64 in the schema). */
const integer = (n: number) => (Number.isSafeInteger(n) ? `${n}` : JSON.stringify(n));

/** `JSON.stringify(r)`, with shared payloads' texts reused. */
export function syncResponseText(r: SyncResponse): string {
  let documents = '';
  for (const d of r.documents) {
    const payload = texts.get(d.payload) ?? JSON.stringify(d.payload);
    documents += `${documents === '' ? '' : ','}${OPENING[d.module]}${JSON.stringify(d.key)},"revision":${integer(d.revision)},"payload":${payload}}`;
  }
  return (
    `{"cursor":${JSON.stringify(r.cursor)},"generation":${integer(r.generation)},"revision":${integer(r.revision)},"fullSnapshot":${r.fullSnapshot}` +
    `,"documents":[${documents}],"tombstones":${JSON.stringify(r.tombstones)},"serverTime":${JSON.stringify(r.serverTime)},"refreshAfterSeconds":${integer(r.refreshAfterSeconds)}}`
  );
}
