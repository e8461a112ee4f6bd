import {
  KEY,
  KEY_SOURCE,
  ViolationCode,
  checkBoolean,
  checkDateTime,
  checkInt,
  checkObject,
  checkString,
  checkUniqueStrings,
  checkUuid,
  isObject,
  missing,
  noExtra,
  parseDateTime,
  violation,
  type Obj,
  type StringRule,
  type Violation,
} from '../shared/check';

/** The fifteen SdkOperation types of spec 01, and their payload rules. */
export const OPERATION_TYPES = [
  'EVENT_TRACKED',
  'SCREEN_VIEWED',
  'SCREEN_CLEARED',
  'INSTALLATION_ATTRIBUTES_EDITED',
  'PROFILE_ATTRIBUTES_EDITED',
  'PROFILE_TAGS_EDITED',
  'INSTALLATION_SUBSCRIPTIONS_EDITED',
  'PROFILE_SUBSCRIPTIONS_EDITED',
  'PUSH_TOKEN_SET',
  'PUSH_SUBSCRIPTION_SET',
  'PUSH_PERMISSION_SET',
  'PRIVACY_STATE_SET',
  'INTERACTION_TRACKED',
  'PUSH_RECEIPT_RECORDED',
  'FLAG_EXPOSED',
] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

/** Tracking operations: stored as events, refused while privacy is OPTED_OUT. */
export const TRACKED_TYPES: ReadonlySet<string> = new Set([
  'EVENT_TRACKED',
  'SCREEN_VIEWED',
  'SCREEN_CLEARED',
  'INTERACTION_TRACKED',
  'PUSH_RECEIPT_RECORDED',
  'FLAG_EXPOSED',
]);

export const PUSH_PERMISSION_STATES = ['NOT_DETERMINED', 'DENIED', 'AUTHORIZED', 'PROVISIONAL', 'EPHEMERAL'] as const;
export const OPT_STATES = ['OPTED_IN', 'OPTED_OUT'] as const;
export const CHANNELS = ['PUSH', 'EMAIL', 'SMS', 'WHATSAPP'] as const;

const K: StringRule = { pattern: KEY, patternText: KEY_SOURCE };
const EVENT_NAME: StringRule = { pattern: /^[a-z][a-z0-9_]{1,63}$/ };
const TEXT_1_255: StringRule = { min: 1, max: 255 };
const TEXT_255: StringRule = { max: 255 };
const TAG: StringRule = { min: 1, max: 64 };
const P = 'payload.';
const MAX_SET_PROPERTIES = 200;

type PayloadCheck = (p: Obj) => Violation | null;

const keys = (...k: string[]): ReadonlySet<string> => new Set(k);

function required(p: Obj, k: string, check: (v: unknown, field: string) => Violation | null): Violation | null {
  const v = p[k];
  return v === undefined ? missing(P + k) : check(v, P + k);
}

function optional(p: Obj, k: string, check: (v: unknown, field: string) => Violation | null, nullable = false): Violation | null {
  const v = p[k];
  if (v === undefined || (nullable && v === null)) return null;
  return check(v, P + k);
}

const str = (rule: StringRule) => (v: unknown, f: string) => checkString(v, f, rule);
const int = (min: number) => (v: unknown, f: string) => checkInt(v, f, min);
const nullable = (check: (v: unknown, f: string) => Violation | null) => (v: unknown, f: string) => (v === null ? null : check(v, f));

function attributesEdit(p: Obj): Violation | null {
  const extra = noExtra(p, ATTR_KEYS, P);
  if (extra) return extra;
  const set = p.set;
  if (set !== undefined) {
    if (!isObject(set)) return violation(ViolationCode.type, P + 'set', 'must be an object');
    let n = 0;
    for (const name in set) {
      if (++n > MAX_SET_PROPERTIES) return violation(ViolationCode.range, P + 'set', `must have at most ${MAX_SET_PROPERTIES} properties`);
      if (!KEY.test(name)) return violation(ViolationCode.format, `${P}set.${name}`, `property name must match ${KEY_SOURCE}`);
    }
  }
  return optional(p, 'remove', (v, f) => checkUniqueStrings(v, f, K));
}
const ATTR_KEYS = keys('set', 'remove');

function changes(p: Obj, itemKeys: ReadonlySet<string>, withChannel: boolean): Violation | null {
  const extra = noExtra(p, CHANGES_KEYS, P);
  if (extra) return extra;
  const list = p.changes;
  if (list === undefined) return missing(P + 'changes');
  if (!Array.isArray(list)) return violation(ViolationCode.type, P + 'changes', 'must be an array');
  if (list.length < 1) return violation(ViolationCode.range, P + 'changes', 'must have at least 1 item');
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as unknown;
    const at = `${P}changes[${i}]`;
    if (!isObject(item)) return violation(ViolationCode.type, at, 'must be an object');
    const bad =
      noExtra(item, itemKeys, at + '.') ??
      (item.list === undefined ? missing(at + '.list') : checkString(item.list, at + '.list', K)) ??
      (withChannel ? (item.channel === undefined ? missing(at + '.channel') : checkString(item.channel, at + '.channel', { values: CHANNELS })) : null) ??
      (item.subscribed === undefined ? missing(at + '.subscribed') : checkBoolean(item.subscribed, at + '.subscribed'));
    if (bad) return bad;
  }
  return null;
}
const CHANGES_KEYS = keys('changes');
const INSTALLATION_CHANGE_KEYS = keys('list', 'subscribed');
const PROFILE_CHANGE_KEYS = keys('list', 'channel', 'subscribed');

function stateSet(values: readonly string[]): PayloadCheck {
  const rule = { values };
  return (p) => noExtra(p, STATE_KEYS, P) ?? required(p, 'state', str(rule));
}
const STATE_KEYS = keys('state');

function isNumberOrNull(v: unknown, f: string): Violation | null {
  return v === null || typeof v === 'number' ? null : violation(ViolationCode.type, f, 'must be a number or null');
}

const EVENT_KEYS = keys('name', 'properties', 'value', 'transactionId');
const SCREEN_VIEWED_KEYS = keys('screen_key', 'previous_screen_key', 'previous_visible_duration_millis');
const SCREEN_CLEARED_KEYS = keys('screen_key', 'visible_duration_millis');
const TAGS_KEYS = keys('add', 'remove');
const TOKEN_KEYS = keys('token');
const INTERACTION_KEYS = keys('experienceId', 'messageId', 'variantId', 'type');
const RECEIPT_KEYS = keys('deliveryId', 'type');
const FLAG_KEYS = keys('flagKey', 'experimentId', 'variantKey', 'revision');

export const PAYLOAD_CHECKS: Record<OperationType, PayloadCheck> = {
  EVENT_TRACKED: (p) =>
    noExtra(p, EVENT_KEYS, P) ??
    required(p, 'name', str(EVENT_NAME)) ??
    required(p, 'properties', checkObject) ??
    optional(p, 'value', isNumberOrNull) ??
    optional(p, 'transactionId', str(TEXT_255), true),
  SCREEN_VIEWED: (p) =>
    noExtra(p, SCREEN_VIEWED_KEYS, P) ??
    required(p, 'screen_key', str(K)) ??
    optional(p, 'previous_screen_key', str(K), true) ??
    optional(p, 'previous_visible_duration_millis', int(0), true),
  SCREEN_CLEARED: (p) => noExtra(p, SCREEN_CLEARED_KEYS, P) ?? required(p, 'screen_key', str(K)) ?? required(p, 'visible_duration_millis', int(0)),
  INSTALLATION_ATTRIBUTES_EDITED: attributesEdit,
  PROFILE_ATTRIBUTES_EDITED: attributesEdit,
  PROFILE_TAGS_EDITED: (p) =>
    noExtra(p, TAGS_KEYS, P) ?? optional(p, 'add', (v, f) => checkUniqueStrings(v, f, TAG)) ?? optional(p, 'remove', (v, f) => checkUniqueStrings(v, f, TAG)),
  INSTALLATION_SUBSCRIPTIONS_EDITED: (p) => changes(p, INSTALLATION_CHANGE_KEYS, false),
  PROFILE_SUBSCRIPTIONS_EDITED: (p) => changes(p, PROFILE_CHANGE_KEYS, true),
  PUSH_TOKEN_SET: (p) => noExtra(p, TOKEN_KEYS, P) ?? required(p, 'token', nullable(str({ max: 4096 }))),
  PUSH_SUBSCRIPTION_SET: stateSet(OPT_STATES),
  PUSH_PERMISSION_SET: stateSet(PUSH_PERMISSION_STATES),
  PRIVACY_STATE_SET: stateSet(OPT_STATES),
  INTERACTION_TRACKED: (p) =>
    noExtra(p, INTERACTION_KEYS, P) ??
    required(p, 'experienceId', checkUuid) ??
    required(p, 'messageId', str(TEXT_1_255)) ??
    optional(p, 'variantId', str(TEXT_255), true) ??
    required(p, 'type', str({ values: ['IMPRESSION', 'CLICK', 'DISMISS', 'CONVERSION'] })),
  PUSH_RECEIPT_RECORDED: (p) =>
    noExtra(p, RECEIPT_KEYS, P) ?? required(p, 'deliveryId', checkUuid) ?? required(p, 'type', str({ values: ['DELIVERED', 'OPENED'] })),
  FLAG_EXPOSED: (p) =>
    noExtra(p, FLAG_KEYS, P) ??
    required(p, 'flagKey', str(K)) ??
    required(p, 'experimentId', str(TEXT_1_255)) ??
    required(p, 'variantKey', str(TEXT_1_255)) ??
    required(p, 'revision', int(1)),
};

const OPERATION_KEYS = keys('operationId', 'generation', 'type', 'occurredAt', 'payload');
const TYPE_RULE: StringRule = { values: OPERATION_TYPES };

/**
 * Validates one SdkOperation whose operationId is already known to be a UUID (the batch
 * envelope checks it, since a result cannot be reported without it).
 */
export function checkOperation(op: Obj): Violation | null {
  return (
    noExtra(op, OPERATION_KEYS, '') ??
    (op.generation === undefined ? missing('generation') : checkInt(op.generation, 'generation', 0)) ??
    (op.type === undefined ? missing('type') : checkString(op.type, 'type', TYPE_RULE)) ??
    (op.occurredAt === undefined ? missing('occurredAt') : checkDateTime(op.occurredAt, 'occurredAt')) ??
    (op.payload === undefined ? missing('payload') : checkObject(op.payload, 'payload')) ??
    PAYLOAD_CHECKS[op.type as OperationType](op.payload as Obj)
  );
}

export { parseDateTime };
