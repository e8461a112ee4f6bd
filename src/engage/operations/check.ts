/**
 * Validation of an operation batch, built from operations/schemas.ts: the envelope (a 400 for
 * the whole batch), then per operation its envelope and the payload schema its type picks,
 * then the bounds JSON Schema cannot say of free-form values (depth, finite numbers) and of the
 * payload's size. Runs on the ingest hot path: nothing is allocated per operation unless it is
 * wrong, and the payload's JSON made here is the one stored.
 */
import { canonicalJson, sha256Hex } from '../../platform/idempotency';
import { findString } from '../../platform/http/body';
import { hasNul, MAX_FREE_FORM_BYTES, MAX_FREE_FORM_DEPTH as FREE_FORM_DEPTH, NUL_REASON } from '../../platform/http/json-bounds';
import { checker, violation, ViolationCode, type Checker, type TSchema, type Violation } from '../../platform/http/schema';
import { OperationErrorCode } from './errors';
import { OPERATION_TYPES, PAYLOADS, SdkOperationEnvelope } from './schemas';

/** Levels of arrays and objects one free-form value may nest: the bound of every API (json-bounds.ts). */
export const MAX_FREE_FORM_DEPTH = FREE_FORM_DEPTH;
/** Bytes of an operation's payload as JSON (UTF-8); 100 of them fit in the default request cap. */
export const MAX_PAYLOAD_BYTES = MAX_FREE_FORM_BYTES;

type Obj = Record<string, unknown>;

const operationEnvelope = checker(SdkOperationEnvelope);
const payloadCheckers = new Map<string, Checker<TSchema>>(OPERATION_TYPES.map((t) => [t, checker(PAYLOADS[t])]));
export const KNOWN_TYPES: ReadonlySet<string> = new Set(OPERATION_TYPES);

/**
 * Checks every operation of an envelope-valid batch. `violations[i]` gets the first violation
 * of operation i or null; `payloads[i]` the payload's JSON when it is valid.
 */
export function checkOperations(ops: readonly Obj[], violations: (Violation | null)[], payloads: (string | undefined)[]): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    let v = operationEnvelope(op) ?? payloadCheckers.get(op.type as string)!(op.payload, 'payload');
    if (v === null) {
      const payload = op.payload as Obj;
      if (op.type === 'EVENT_TRACKED') v = checkFreeForm(payload.properties as Obj, 'payload.properties');
      else if (payload.set !== undefined && (op.type === 'INSTALLATION_ATTRIBUTES_EDITED' || op.type === 'PROFILE_ATTRIBUTES_EDITED'))
        v = checkFreeForm(payload.set as Obj, 'payload.set');
    }
    if (v === null) {
      // Safe: every value in it is bounded in depth now. Strings are at most 3 bytes per UTF-16 unit.
      const json = JSON.stringify(op.payload);
      if (json.length * 3 > MAX_PAYLOAD_BYTES && Buffer.byteLength(json) > MAX_PAYLOAD_BYTES)
        v = violation(OperationErrorCode.payloadTooLarge, 'payload', `must be at most ${MAX_PAYLOAD_BYTES} bytes as JSON`);
      // The body reader let NUL through for this check (shared/body.ts): JSON.stringify writes it
      // as \u0000, so only a payload whose JSON holds that text is walked.
      else if (json.includes('\\u0000')) v = nulIn(op.payload as Obj);
      if (v === null) payloads[i] = json;
    }
    violations[i] = v;
  }
}

/** A NUL character in a string or property name of the payload, which PostgreSQL's text cannot hold. */
function nulIn(payload: Obj): Violation | null {
  const at = findString(payload, hasNul);
  return at === undefined ? null : violation(ViolationCode.value, `payload.${at}`, NUL_REASON);
}

const NESTED = 1;
const NOT_FINITE = 2;
// One explicit stack for every walk (no recursion, so no depth can overflow the call stack).
const stack: object[] = [];
const depths: number[] = [];

/**
 * Each value of `container` (event properties, attribute values) must nest at most
 * MAX_FREE_FORM_DEPTH levels and hold only finite numbers (JSON.parse makes Infinity of 1e400,
 * which JSON.stringify would store as null). The violation names the property.
 */
function checkFreeForm(container: Obj, path: string): Violation | null {
  for (const k in container) {
    const v = container[k];
    const bad = typeof v === 'object' && v !== null ? walk(v) : typeof v === 'number' && !Number.isFinite(v) ? NOT_FINITE : 0;
    if (bad === NESTED) return violation(OperationErrorCode.nestingTooDeep, `${path}.${k}`, `must not nest arrays and objects more than ${MAX_FREE_FORM_DEPTH} levels deep`);
    if (bad === NOT_FINITE) return violation(ViolationCode.value, `${path}.${k}`, 'must hold only finite numbers');
  }
  return null;
}

/** Iterative depth-first walk of one value; 0 when it conforms. */
function walk(root: object): number {
  let n = 0;
  stack[n] = root;
  depths[n++] = 1;
  let result = 0;
  outer: while (n > 0) {
    const node = stack[--n] as Obj | unknown[];
    const child = depths[n] + 1;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const x = node[i];
        if (typeof x === 'object' && x !== null) {
          if (child > MAX_FREE_FORM_DEPTH) {
            result = NESTED;
            break outer;
          }
          stack[n] = x;
          depths[n++] = child;
        } else if (typeof x === 'number' && !Number.isFinite(x)) {
          result = NOT_FINITE;
          break outer;
        }
      }
    } else {
      for (const k in node) {
        const x = node[k];
        if (typeof x === 'object' && x !== null) {
          if (child > MAX_FREE_FORM_DEPTH) {
            result = NESTED;
            break outer;
          }
          stack[n] = x;
          depths[n++] = child;
        } else if (typeof x === 'number' && !Number.isFinite(x)) {
          result = NOT_FINITE;
          break outer;
        }
      }
    }
  }
  stack.length = 0;
  return result;
}

/**
 * SHA-256 of what a batch asks for: its operations, each re-serialized from the parsed request
 * (so whitespace and escapes do not matter; order, values and ids do). A valid operation is
 * written from its checked fields and payload JSON; an invalid one, which may nest without
 * bound, by the iterative `canonicalJson` (platform/idempotency.ts).
 */
export function batchDigest(ops: readonly Obj[], violations: readonly (Violation | null)[], payloads: readonly (string | undefined)[]): string {
  let text = '';
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    // JSON never holds a raw newline, so newline-separated fields cannot run into each other.
    text +=
      violations[i] === null
        ? `A\n${op.operationId as string}\n${op.generation as number}\n${op.type as string}\n${op.occurredAt as string}\n${payloads[i]!}\n`
        : `R\n${canonicalJson(op)}\n`;
  }
  return sha256Hex(text);
}
