/**
 * Wire shapes of in-app messages on the engagement administration API (issue 27): the message
 * file (docs/in-app.md; `engage in-app --print-schema` prints it), what the routes answer, the
 * results. One schema each for validation, types and the OpenAPI document; the rules across
 * fields (weights, locales, triggers, schedule) are the service's `messageViolations`.
 */
import { pageOf } from '../../platform/http/pagination';
import { DateTime, Enum, Nullable, Strict, T } from '../../platform/http/schema';
import { Key } from '../shared/schemas';
import { InAppBounds, InteractionCounts, MESSAGE_STATUSES, MessageDefinition } from './schemas';
import { RESULT_DAYS } from './service';

const Day = (description: string) => T.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description });

export const MessageKeyPath = Key({ description: 'the message key' });
export const MessageStatusQuery = Enum(MESSAGE_STATUSES, { description: 'only messages of this status' });
/** 1..366 as the query string carries it. */
export const ResultDaysQuery = T.String({
  pattern: '^([1-9]|[1-9][0-9]|[12][0-9]{2}|3[0-5][0-9]|36[0-6])$',
  description: `UTC days back from today, today included: 1 to ${RESULT_DAYS.max} (default ${RESULT_DAYS.default})`,
});

/** The message file: a MessageDefinition whose `targetApps` name apps by id or by name (stored as ids). */
export const MessageFile = Strict(
  {
    ...MessageDefinition.properties,
    targetApps: T.Optional(
      T.Array(T.String({ minLength: 1, maxLength: 100 }), { maxItems: InAppBounds.targetApps, uniqueItems: true, description: 'apps of the environment by id or name; absent or empty: every app' }),
    ),
  },
  { description: 'an in-app message file (docs/in-app.md)' },
);
/** An edit's body: the message file, whose key may be left out (it cannot change). */
export const MessageUpdate = Strict({ ...MessageFile.properties, key: T.Optional(MessageFile.properties.key) });

export const MessageSummary = Strict({
  environmentId: T.String(),
  key: Key(),
  id: T.String({ format: 'uuid', description: 'the message id: INTERACTION_TRACKED experienceId' }),
  description: Nullable(T.String()),
  status: Enum(MESSAGE_STATUSES, { description: 'DRAFT: never published; ACTIVE: devices get it; PAUSED: devices get a tombstone until published again; ARCHIVED: for good' }),
  version: T.Integer({ minimum: 1, description: 'the latest edit; If-Match takes it' }),
  publishedVersion: Nullable(T.Integer({ minimum: 1, description: 'the version devices are served (null: never published)' })),
  draftPending: T.Boolean({ description: 'the latest edit is not published yet' }),
  configurationManaged: T.Boolean({ description: 'declared by engage apply: changed only through the file' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  publishedAt: Nullable(DateTime({ description: 'when the published version was first published' })),
});
export const MessagePage = pageOf(MessageSummary);

export const MessageDetail = Strict({
  ...MessageSummary.properties,
  definition: MessageDefinition,
  published: Nullable(MessageDefinition),
  changed: T.Optional(T.Boolean({ description: 'on a change: false when it changed nothing' })),
});

export const MessageResults = Strict({
  environmentId: T.String(),
  key: Key(),
  id: T.String({ format: 'uuid' }),
  fromDay: Day('the first UTC day counted'),
  variants: T.Array(
    Strict({
      variantId: Nullable(T.String({ description: 'the variant key (INTERACTION_TRACKED variantId); null for a message without variants' })),
      totals: InteractionCounts,
      daily: T.Array(Strict({ day: Day('a UTC day'), counts: InteractionCounts }), { description: 'days with interactions, oldest first' }),
    }),
    { description: 'every variant of the published version, and any other counted' },
  ),
});

/** The request body example of create and update (docs/in-app.md has the full format). */
export const MESSAGE_EXAMPLE = {
  key: 'spring-sale',
  description: 'Spring sale announcement',
  targetApps: ['shop-ios'],
  audience: [{ attribute: 'appVersion', operator: 'semverGte', values: ['2.0.0'] }],
  schedule: { startsAt: '2027-03-01T00:00:00Z', endsAt: '2027-03-31T00:00:00Z' },
  triggers: [{ type: 'EVENT', eventName: 'cart_viewed', conditions: [{ property: 'total', operator: 'gte', values: [50] }] }],
  priority: 10,
  frequencyCap: { impressions: 1, periodSeconds: 86_400 },
  defaultLocale: 'en',
  content: {
    en: { title: 'Spring sale', body: '20% off everything this week', buttons: [{ label: 'Shop now', action: 'DEEP_LINK', deepLink: 'shop://sale' }, { label: 'Later', action: 'DISMISS' }] },
    fr: { title: 'Soldes de printemps', body: '20 % sur tout cette semaine' },
  },
};
