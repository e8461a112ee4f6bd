import { checkString, isObject, missing, noExtra, violation, ViolationCode, type Violation } from '../shared/check';

/** BindingTransitionRequest of spec 01 (no additional properties). */
export interface TransitionRequest {
  bindingCode: string;
  target: { externalId: string } | null;
}

const ALLOWED = new Set(['bindingCode', 'target']);
const TARGET = new Set(['externalId']);
/** Visible ASCII: a UUID or a business-derived string (spec 01 behaviour rule 2). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function checkTransition(body: unknown): Violation | null {
  if (!isObject(body)) return violation(ViolationCode.type, 'body', 'must be a JSON object');
  const extra = noExtra(body, ALLOWED, '');
  if (extra) return extra;
  if (body.bindingCode === undefined) return missing('bindingCode');
  const code = checkString(body.bindingCode, 'bindingCode', { min: 1, max: 1024 });
  if (code) return code;
  if (body.target === undefined) return missing('target');
  const t = body.target;
  if (t === null) return null;
  if (!isObject(t)) return violation(ViolationCode.type, 'target', 'must be an object or null');
  return noExtra(t, TARGET, 'target.') ?? (t.externalId === undefined ? missing('target.externalId') : checkString(t.externalId, 'target.externalId', { min: 1, max: 255 }));
}

export function checkIdempotencyKey(v: string | undefined): Violation | null {
  if (v === undefined) return missing('Idempotency-Key header');
  return IDEMPOTENCY_KEY.test(v) ? null : violation(ViolationCode.format, 'Idempotency-Key header', 'must be 1 to 255 visible ASCII characters');
}
