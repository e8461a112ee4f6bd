/**
 * Wire shapes of the templates, test groups and test sends of the engagement administration API
 * (issue 24 point 4): one schema each for validation, types and the OpenAPI document.
 */
import { pageOf } from '../../platform/http/pagination';
import { DateTime, Enum, FreeValue, Nullable, Strict, T, Uuid } from '../../platform/http/schema';
import { FreeObject, KEY_PATTERN, Platform } from '../shared/schemas';
import { SendResponse, TemplateFile } from './schemas';
import { MAX_TEST_GROUP_MEMBERS } from './test-groups';

export const TemplateKeyPath = T.String({ pattern: KEY_PATTERN, description: 'the template key' });
export const TestGroupPath = T.String({ minLength: 1, maxLength: 100, description: 'the test group id or name' });
export const VersionPath = T.String({ pattern: '^([1-9][0-9]{0,8}|draft|published|latest)$', description: 'a version number, or draft, published, latest' });

const VersionSelector = T.Union([Enum(['draft', 'published', 'latest'] as const), T.Integer({ minimum: 1, maximum: 999_999_999 })], {
  description: 'draft (the unpublished latest version), published (the version serving sends), latest (the draft if any, else the published; the default) or a version number',
});

export const Template = Strict({
  id: Uuid(),
  environmentId: Uuid(),
  key: T.String(),
  status: Enum(['DRAFT', 'ACTIVE', 'ARCHIVED'] as const, { description: 'DRAFT until a version is published; ACTIVE while one serves sends; ARCHIVED' }),
  publishedVersion: Nullable(T.Integer({ minimum: 1 })),
  latestVersion: T.Integer({ minimum: 1 }),
  configurationManaged: T.Boolean({ description: 'declared by engage apply: edited only through the file' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export const TemplatePage = pageOf(Template);

export const TemplateVersion = Strict({
  version: T.Integer({ minimum: 1 }),
  state: Enum(['DRAFT', 'PUBLISHED', 'SUPERSEDED'] as const),
  createdAt: DateTime(),
  publishedAt: Nullable(DateTime()),
});
export const TemplateVersions = Strict({ items: T.Array(TemplateVersion) });

const Definition = FreeObject({ description: 'the version as stored: the template file with app ids and defaults filled in' });
export const TemplateVersionDetail = Strict({ ...TemplateVersion.properties, definition: Definition });

export const TemplateDetail = Strict({
  ...Template.properties,
  versions: T.Array(TemplateVersion),
  draft: Nullable(Definition),
  published: Nullable(Definition),
  sends: T.Integer({ minimum: 0, description: 'sends of the template, test sends left out' }),
  deliveries: T.Record(T.String(), T.Integer({ minimum: 0 }), { description: 'their deliveries by state, those of test sends left out' }),
  testSends: T.Integer({ minimum: 0 }),
});

/** The body of an update: the template file, whose key may be left out (it cannot change). */
export const TemplateUpdate = Strict({ ...TemplateFile.properties, key: T.Optional(TemplateFile.properties.key) });

const Variables = FreeObject({ maxProperties: 100, values: FreeValue(), description: 'typed template variables' });
const RequestedLocale = T.String({ minLength: 1, maxLength: 35, description: 'the requested locale; default: the template’s default locale' });

/** An unsaved edit rendered instead of a stored version (the console's live preview while typing). */
const UnsavedFile = Strict(
  { ...TemplateFile.properties, key: T.Optional(TemplateFile.properties.key) },
  { description: 'an unsaved template file (its key may be left out, and cannot differ) rendered instead of a stored version: checked as an edit would be, stored nowhere; not with version' },
);

export const PreviewRequest = Strict({ version: T.Optional(VersionSelector), file: T.Optional(UnsavedFile), locale: T.Optional(RequestedLocale), variables: T.Optional(Variables) });

export const Preview = Strict({
  templateKey: T.String(),
  version: Nullable(T.Integer({ minimum: 1, description: 'the version rendered; null for an unsaved file' })),
  state: Enum(['DRAFT', 'PUBLISHED', 'SUPERSEDED', 'UNSAVED'] as const, { description: 'the version’s state; UNSAVED for a file given in the request' }),
  resolvedLocale: T.String(),
  title: T.String(),
  body: T.String(),
  deepLink: T.String({ description: 'empty when the template has none' }),
  customData: FreeObject(),
  targets: T.Array(
    Strict({
      appId: Uuid(),
      appName: T.String(),
      platform: Platform,
      provider: Enum(['APNS', 'FCM'] as const),
      payload: FreeObject({ description: 'the APNs payload or the FCM v1 message a delivery would carry; the delivery id is the nil UUID and the FCM token a placeholder' }),
      payloadBytes: T.Integer({ minimum: 0 }),
    }),
    { description: 'one per app of the template' },
  ),
});

const Member = Strict(
  {
    installationId: T.Optional(Uuid({ description: 'an installation of this environment' })),
    externalId: T.Optional(T.String({ minLength: 1, maxLength: 255, description: 'a profile’s external id: its installations at the time of a test send' })),
  },
  { description: 'exactly one of installationId and externalId' },
);
const Members = T.Array(Member, { maxItems: MAX_TEST_GROUP_MEMBERS });
const GroupName = T.String({ minLength: 1, maxLength: 100, pattern: '^[^\\x00-\\x1f]+$' });

export const TestGroupCreate = Strict({ name: GroupName, members: Members });
export const TestGroupUpdate = Strict({ name: T.Optional(GroupName), members: T.Optional(Members) }, { minProperties: 1 });

export const TestGroup = Strict({
  id: Uuid(),
  environmentId: Uuid(),
  name: T.String(),
  memberCount: T.Integer({ minimum: 0 }),
  configurationManaged: T.Boolean(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export const TestGroupPage = pageOf(TestGroup);
export const TestGroupDetail = Strict({ ...TestGroup.properties, members: T.Array(Member) });

export const TestSendRequest = Strict({
  template: T.String({ pattern: KEY_PATTERN, description: 'the template key' }),
  testGroup: T.String({ minLength: 1, maxLength: 100, description: 'the test group id or name' }),
  version: T.Optional(VersionSelector),
  locale: T.Optional(RequestedLocale),
  variables: T.Optional(Variables),
  idempotencyKey: T.Optional(T.String({ minLength: 1, maxLength: 255, description: 'generated (test-<uuid>) when absent' })),
});

export const TestSendResponse = T.Object({
  ...SendResponse.properties,
  unresolvedMembers: T.Integer({ minimum: 0, description: 'members naming no installation now (an unknown external id, an erased installation)' }),
  isTest: T.Literal(true),
});
