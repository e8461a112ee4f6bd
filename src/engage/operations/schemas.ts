/**
 * Wire shapes of POST /v1/sdk/operations:batch (spec 01 "OperationBatchRequest",
 * "SdkOperation", "OperationResult"). Validation does not run the published `SdkOperation`
 * union: it checks the batch envelope, then each operation's envelope, then the payload schema
 * its `type` picks from PAYLOADS, so a 100-operation batch is not tried against fifteen
 * branches and every message names the field of the right type (operations/check.ts).
 */
import { DateTime, Enum, Int64, Strict, T, Uuid, type Static, type TSchema } from '../../platform/http/schema';
import { FreeObject, Key, KEY_PATTERN, OPT_STATES, OrNull, PushPermissionState } from '../shared/schemas';

/** The fifteen SdkOperation types of spec 01. */
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

export const CHANNELS = ['PUSH', 'EMAIL', 'SMS', 'WHATSAPP'] as const;
export const MAX_BATCH = 100;
export const MAX_SET_PROPERTIES = 200;

const text = (minLength: number, maxLength: number) => T.String(minLength > 0 ? { minLength, maxLength } : { maxLength });
const uniqueStrings = (item: TSchema) => T.Array(item, { uniqueItems: true });

const AttributesEdited = Strict({
  set: T.Optional(
    FreeObject({
      maxProperties: MAX_SET_PROPERTIES,
      propertyNames: { pattern: KEY_PATTERN },
      description: 'Attribute values by key (pattern K); values are free-form JSON within the bounds of docs/decisions.md.',
    }),
  ),
  remove: T.Optional(uniqueStrings(Key())),
});

const OptState = Enum(OPT_STATES);

/** Payload schema of each type; every payload object rejects additional properties. */
export const PAYLOADS = {
  EVENT_TRACKED: Strict({
    name: T.String({ pattern: '^[a-z][a-z0-9_]{1,63}$' }),
    properties: FreeObject({ description: 'Free keys; free-form JSON values within the bounds of docs/decisions.md.' }),
    value: T.Optional(OrNull(T.Number())),
    transactionId: T.Optional(OrNull(text(0, 255))),
  }),
  SCREEN_VIEWED: Strict({
    screen_key: Key(),
    previous_screen_key: T.Optional(OrNull(Key())),
    previous_visible_duration_millis: T.Optional(OrNull(Int64(0))),
  }),
  SCREEN_CLEARED: Strict({ screen_key: Key(), visible_duration_millis: Int64(0) }),
  INSTALLATION_ATTRIBUTES_EDITED: AttributesEdited,
  PROFILE_ATTRIBUTES_EDITED: AttributesEdited,
  PROFILE_TAGS_EDITED: Strict({ add: T.Optional(uniqueStrings(text(1, 64))), remove: T.Optional(uniqueStrings(text(1, 64))) }),
  INSTALLATION_SUBSCRIPTIONS_EDITED: Strict({
    changes: T.Array(Strict({ list: Key(), subscribed: T.Boolean() }), { minItems: 1 }),
  }),
  PROFILE_SUBSCRIPTIONS_EDITED: Strict({
    changes: T.Array(Strict({ list: Key(), channel: Enum(CHANNELS), subscribed: T.Boolean() }), { minItems: 1 }),
  }),
  PUSH_TOKEN_SET: Strict({ token: OrNull(text(0, 4096)) }),
  PUSH_SUBSCRIPTION_SET: Strict({ state: OptState }),
  PUSH_PERMISSION_SET: Strict({ state: PushPermissionState }),
  PRIVACY_STATE_SET: Strict({ state: OptState }),
  INTERACTION_TRACKED: Strict({
    experienceId: Uuid(),
    messageId: text(1, 255),
    variantId: T.Optional(OrNull(text(0, 255))),
    type: Enum(['IMPRESSION', 'CLICK', 'DISMISS', 'CONVERSION'] as const),
  }),
  PUSH_RECEIPT_RECORDED: Strict({ deliveryId: Uuid(), type: Enum(['DELIVERED', 'OPENED'] as const) }),
  FLAG_EXPOSED: Strict({ flagKey: Key(), experimentId: text(1, 255), variantKey: text(1, 255), revision: Int64(1) }),
} satisfies Record<OperationType, TSchema>;

const operationFields = {
  operationId: Uuid({ description: 'Idempotent per installation.' }),
  generation: Int64(0, { description: 'The binding generation the operation was created in.' }),
  occurredAt: DateTime(),
};

/** The fields every SdkOperation has, with the payload still unchecked: what validation runs first. */
export const SdkOperationEnvelope = Strict({
  ...operationFields,
  type: Enum(OPERATION_TYPES),
  payload: FreeObject({ description: 'Object whose shape depends on type.' }),
});
export type SdkOperationEnvelope = Static<typeof SdkOperationEnvelope>;

/** SdkOperation (no additional properties, all required), one branch per type, for the OpenAPI document. */
export const SdkOperation = T.Union(
  OPERATION_TYPES.map((type) => Strict({ ...operationFields, type: T.Literal(type), payload: PAYLOADS[type] })),
);

/** OperationBatchRequest (no additional properties), as published. */
export const OperationBatchRequest = Strict({
  batchId: Uuid({ description: 'Idempotent per installation: a repeat with the same operations answers 200 with the first result.' }),
  operations: T.Array(SdkOperation, { minItems: 1, maxItems: MAX_BATCH }),
});

/**
 * What makes a batch a 400 rather than per-operation rejections: every operation must at least
 * be an object with a UUID operationId, since a result cannot be reported without one
 * (docs/decisions.md).
 */
export const OperationBatchEnvelope = Strict({
  batchId: Uuid(),
  operations: T.Array(T.Object({ operationId: Uuid() }), { minItems: 1, maxItems: MAX_BATCH }),
});
export type OperationBatchEnvelope = Static<typeof OperationBatchEnvelope>;

export const OperationStatus = Enum(['ACCEPTED', 'DUPLICATE', 'REJECTED'] as const);

/** OperationResult: `errorCode` and `message` are set only for REJECTED. */
export const OperationResult = T.Object({
  operationId: Uuid(),
  status: OperationStatus,
  errorCode: OrNull(T.String({ description: 'docs/decisions.md lists the values.' })),
  message: OrNull(T.String({ description: '`<field path>: <reason>`; names the field (a path may hold the client\'s property names) but never echoes a value.' })),
});
export type OperationResult = Static<typeof OperationResult>;

/** OperationBatchResult: 202 when processed, 200 when the batch was answered before. */
export const OperationBatchResult = T.Object({
  batchId: Uuid(),
  results: T.Array(OperationResult),
  serverTime: DateTime(),
});
export type OperationBatchResult = Static<typeof OperationBatchResult>;
