/**
 * Wire shapes of the transactional send (spec 01 "Transactional send") and of the template file
 * the CLI reads (issue 13). One schema each: validation, types and the OpenAPI document.
 */
import { checker, DateTime, Enum, FreeValue, Strict, T, Uuid, type Static } from '../../platform/http/schema';
import { FreeObject, KEY_PATTERN, OrNull, Platform } from '../shared/schemas';

/** A BCP 47 language tag as installations report it (spec 01: at most 35 characters). */
export const LOCALE_PATTERN = '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$';
const Locale = (description?: string) => T.String({ pattern: LOCALE_PATTERN, maxLength: 35, description });
export const VARIABLE_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';

export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'date', 'url'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export const VariableDefinition = Strict({
  type: Enum(VARIABLE_TYPES),
  required: T.Optional(T.Boolean({ description: 'Default true; an optional variable may carry a default.' })),
  default: T.Optional(T.Union([T.String({ maxLength: 1024 }), T.Number(), T.Boolean()])),
});

export const Localization = Strict({
  title: T.String({ minLength: 1, maxLength: 256 }),
  body: T.String({ minLength: 1, maxLength: 2048 }),
  deepLink: T.Optional(T.String({ minLength: 1, maxLength: 2048 })),
  customData: T.Optional(FreeObject({ maxProperties: 50, values: FreeValue(), description: 'String values may hold {{variable}} placeholders.' })),
});

/** Bounds of a template's inbox part (docs/templates.md "The inbox part"). */
export const INBOX_LIMITS = { expiresInSeconds: { min: 60, max: 31_536_000 }, fileBytes: 32_768, renderedBytes: 65_536 } as const;

const InboxSurface = (what: string) =>
  FreeObject({ maxProperties: 50, values: FreeValue(), description: `The ${what} surface (free JSON); string values may hold {{variable}} placeholders.` });

/** One locale of a template's inbox part: the entry's payload and, optionally, its LAYOUT rendering. */
export const InboxLocalization = Strict({
  payload: FreeObject({ maxProperties: 50, values: FreeValue(), description: 'The entry’s payload as GET /v1/sdk/inbox pages it (free JSON); string values may hold {{variable}} placeholders.' }),
  layout: T.Optional(Strict({ SUMMARY: InboxSurface('SUMMARY'), DETAIL: InboxSurface('DETAIL') }, { description: 'The LAYOUT rendering renderings:resolve answers; absent: the entry is headless in this locale.' })),
});

/** The inbox part of a template (issue 27): a send writes one inbox entry from it. */
export const InboxPart = Strict({
  key: T.String({ pattern: KEY_PATTERN, description: 'The entry’s key (InboxEntry.key), what the app tells entries apart by.' }),
  localizations: T.Record(T.String({ pattern: LOCALE_PATTERN }), InboxLocalization, { minProperties: 1, maxProperties: 200, description: 'Must hold the template’s default (and fallback) locale.' }),
  expiresInSeconds: T.Optional(
    T.Integer({ minimum: INBOX_LIMITS.expiresInSeconds.min, maximum: INBOX_LIMITS.expiresInSeconds.max, description: 'The entry expires this long after the send (60 s to 365 days); absent: it never expires.' }),
  ),
});
export type InboxPart = Static<typeof InboxPart>;

/** The template file of `engage templates create|update --file` (no additional properties). */
export const TemplateFile = Strict({
  key: T.String({ pattern: KEY_PATTERN, description: 'Immutable once created.' }),
  apps: T.Array(T.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 50, uniqueItems: true, description: 'Target apps by id or name.' }),
  defaultLocale: Locale(),
  fallbackLocale: T.Optional(Locale()),
  variables: T.Optional(T.Record(T.String({ pattern: VARIABLE_PATTERN }), VariableDefinition, { maxProperties: 100 })),
  localizations: T.Optional(T.Record(T.String({ pattern: LOCALE_PATTERN }), Localization, { minProperties: 1, maxProperties: 200, description: 'The push; absent: an inbox-only template (then `inbox` is required).' })),
  inbox: T.Optional(InboxPart),
  ttlSeconds: T.Optional(T.Integer({ minimum: 0, maximum: 2_419_200, description: 'Default 86400; 0 = deliver now or never (APNs apns-expiration 0).' })),
  priority: T.Optional(Enum(['normal', 'high'] as const)),
  rateLimitPerMinute: T.Optional(T.Integer({ minimum: 1, maximum: 1_000_000, description: 'Sends admitted per minute; default 6000.' })),
  dedupWindowSeconds: T.Optional(T.Integer({ minimum: 0, maximum: 86_400, description: 'Same content to the same installation within it is suppressed; default 0.' })),
  collapseId: T.Optional(T.String({ minLength: 1, maxLength: 64, description: 'apns-collapse-id / FCM collapse_key.' })),
  list: T.Optional(T.String({ pattern: KEY_PATTERN, description: 'A subscription list of the environment that sends on PUSH (docs/preferences.md): recipients unsubscribed from it are skipped.' })),
});
export type TemplateFile = Static<typeof TemplateFile>;

export const RECIPIENT_TYPES = ['EXTERNAL_ID', 'PROFILE', 'INSTALLATION_ID', 'TEST_GROUP'] as const;

/** The send request (spec 01): recipient and idempotencyKey required, locale and variables optional. */
export const SendRequest = Strict({
  recipient: Strict({ type: Enum(RECIPIENT_TYPES), value: T.String({ minLength: 1, maxLength: 255 }) }),
  locale: T.Optional(T.String({ minLength: 1, maxLength: 35, description: 'Requested locale; default: the template’s default locale.' })),
  variables: T.Optional(FreeObject({ maxProperties: 100, values: FreeValue(), description: 'Typed template variables; at most 100.' })),
  idempotencyKey: T.String({ minLength: 1, maxLength: 255, description: 'Derived from the business operation; 1 to 255 characters.' }),
});
export type SendRequest = Static<typeof SendRequest>;

/**
 * What happened to each installation the recipient resolved to in the apps the access key may
 * use (docs/decisions.md "Transactional push"); installations of other apps are not reported.
 */
export const DIAGNOSTIC_CODES = [
  'TARGETED',
  'APP_NOT_TARGETED',
  'APP_DISABLED',
  'PRIVACY_OPTED_OUT',
  'PUSH_UNSUBSCRIBED',
  'PUSH_PERMISSION_DENIED',
  'PUSH_PERMISSION_NOT_DETERMINED',
  'NO_PUSH_TOKEN',
  'NO_PROVIDER_CREDENTIALS',
  'SUPPRESSED_DUPLICATE',
  // Preferences (issue 26): the template's list, the profile's quiet hours.
  'LIST_UNSUBSCRIBED',
  'DEFERRED_QUIET_HOURS',
  'EXPIRES_IN_QUIET_HOURS',
  // Issue 27: an inbox-only template's send writes its inbox entry and no delivery.
  'INBOX_ONLY',
] as const;
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export const Diagnostic = T.Object({
  installationId: Uuid(),
  appId: Uuid(),
  platform: Platform,
  code: Enum(DIAGNOSTIC_CODES, {
    description: 'TARGETED: a delivery was admitted; DEFERRED_QUIET_HOURS: admitted, held until the profile’s quiet hours end (deferredUntil); INBOX_ONLY: the template has no push, its inbox entry stands for the send; every other code names why the installation was skipped.',
  }),
  deliveryId: OrNull(Uuid({ description: 'The delivery (apns-id, PUSH_RECEIPT_RECORDED deliveryId) when TARGETED or DEFERRED_QUIET_HOURS.' })),
  deferredUntil: T.Optional(DateTime({ description: 'DEFERRED_QUIET_HOURS and EXPIRES_IN_QUIET_HOURS: when the quiet hours end.' })),
});
export type Diagnostic = Static<typeof Diagnostic>;

export const SendResponse = T.Object({
  accepted: T.Boolean({ description: 'True when at least one delivery was admitted.' }),
  resolvedLocale: T.String(),
  renderedTitle: T.String(),
  renderedBody: T.String(),
  renderedDeepLink: T.String({ description: 'Empty when the template has none.' }),
  renderedCustomData: FreeObject(),
  targetAppIds: T.Array(Uuid(), { description: 'The template’s apps the access key may use.' }),
  diagnostics: T.Array(Diagnostic, { description: 'One entry per installation of the recipient in an app the access key may use; nothing of the others.' }),
  requestId: T.String({ description: 'The send id (`engage sends show`); the same on a replay.' }),
  inboxEntryId: T.Optional(
    OrNull(Uuid({ description: 'Extension (issue 27), present when the template has an inbox part: the entry the send wrote (the push payload’s `inboxEntryId`), null when none was written.' })),
  ),
});
export type SendResponse = Static<typeof SendResponse>;

export const TemplateKeyParam = T.String({ pattern: KEY_PATTERN });

export const checkTemplateFile = checker(TemplateFile);
/**
 * The JSON Schema the template file is checked with, as JSON (`engage templates create
 * --print-schema`; docs/templates.md): the very schema `checkTemplateFile` compiles, not a copy.
 */
export const templateJsonSchema = () => JSON.parse(JSON.stringify(checkTemplateFile.schema)) as unknown;
