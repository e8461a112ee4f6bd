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

/**
 * A shared payload's document text, for the module and key it was first sent with: its text up
 * to the revision and after it, and the whole text at the revision it was first sent with. A
 * document derived from definitions alone (a channel, a flag that reads nothing of the
 * installation) has the same revision for everyone, so its text is made once per definitions
 * revision, like its payload's; one whose revision is the installation's or profile's is the two
 * parts around its revision.
 */
const documentTexts = new WeakMap<object, { module: SdkModule; key: string; revision: number; text: string; head: string; tail: string }>();

/** `JSON.stringify(r)`, with shared payloads' texts reused. */
export function syncResponseText(r: SyncResponse): string {
  let documents = '';
  for (const d of r.documents) {
    const held = documentTexts.get(d.payload);
    let text: string;
    if (held !== undefined && held.key === d.key && held.module === d.module) text = held.revision === d.revision ? held.text : held.head + integer(d.revision) + held.tail;
    else {
      const kept = texts.get(d.payload);
      const head = `${OPENING[d.module]}${JSON.stringify(d.key)},"revision":`;
      const tail = `,"payload":${kept ?? JSON.stringify(d.payload)}}`;
      text = head + integer(d.revision) + tail;
      if (kept !== undefined && held === undefined) documentTexts.set(d.payload, { module: d.module, key: d.key, revision: d.revision, text, head, tail });
    }
    documents += documents === '' ? text : `,${text}`;
  }
  return (
    `{"cursor":${JSON.stringify(r.cursor)},"generation":${integer(r.generation)},"revision":${integer(r.revision)},"fullSnapshot":${r.fullSnapshot}` +
    `,"documents":[${documents}],"tombstones":${JSON.stringify(r.tombstones)},"serverTime":${JSON.stringify(r.serverTime)},"refreshAfterSeconds":${integer(r.refreshAfterSeconds)}}`
  );
}
