/**
 * The push channel file (issue 26 PUSH) of `engage push-channels create|update --file` and of the
 * administration API: an Android notification channel (an ANDROID app's) or an iOS notification
 * category (an IOS app's), stored exactly as `PushChannelDefinition` (read-store.ts). Two strict
 * schemas chosen by `kind`, so a refusal names the field of the kind given rather than a branch
 * of a union.
 */
import { checker, Enum, Strict, T, violation, ViolationCode, type Static, type Violation } from '../../platform/http/schema';
import { Key } from '../shared/schemas';
import { CHANNEL_IMPORTANCES, type PushChannelDefinition } from './read-store';

export const PUSH_CHANNEL_KINDS = ['ANDROID_CHANNEL', 'IOS_CATEGORY'] as const;
export type PushChannelKind = (typeof PUSH_CHANNEL_KINDS)[number];
/** The kind each platform's apps take. */
export const KIND_OF_PLATFORM = { ANDROID: 'ANDROID_CHANNEL', IOS: 'IOS_CATEGORY' } as const;

export const PushChannelBounds = { name: 100, description: 300, sound: 100, actions: 10, actionId: 64, actionTitle: 100 } as const;

const ChannelKey = Key({ description: 'The channel id (Android) or category identifier (iOS); immutable (pattern K).' });

export const AndroidChannelFile = Strict({
  key: ChannelKey,
  kind: T.Literal('ANDROID_CHANNEL'),
  name: T.String({ minLength: 1, maxLength: PushChannelBounds.name, pattern: '\\S', description: 'The name the user sees in the system settings.' }),
  description: T.Optional(T.String({ maxLength: PushChannelBounds.description, description: 'Shown in the system settings; up to 300 characters.' })),
  importance: Enum(CHANNEL_IMPORTANCES, { description: 'NotificationManager IMPORTANCE_MIN … IMPORTANCE_HIGH.' }),
  sound: T.Optional(
    T.Union([T.String({ pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$', description: 'A sound resource name of the app.' }), T.Null()], {
      description: 'A sound resource name; null: silent; absent: the system’s default sound.',
    }),
  ),
});

export const CategoryAction = Strict({
  id: T.String({ minLength: 1, maxLength: PushChannelBounds.actionId, pattern: '^[A-Za-z0-9_.-]+$', description: 'UNNotificationAction identifier, unique in the category.' }),
  title: T.String({ minLength: 1, maxLength: PushChannelBounds.actionTitle, pattern: '\\S', description: 'The button’s title.' }),
  foreground: T.Optional(T.Boolean({ description: 'Opens the app (UNNotificationActionOptions.foreground).' })),
  destructive: T.Optional(T.Boolean({ description: 'Shown as destructive.' })),
  authenticationRequired: T.Optional(T.Boolean({ description: 'Only on an unlocked device.' })),
});

export const IosCategoryFile = Strict({
  key: ChannelKey,
  kind: T.Literal('IOS_CATEGORY'),
  actions: T.Array(CategoryAction, { maxItems: PushChannelBounds.actions, description: 'Up to 10 action buttons, ids unique (iOS shows the first ones it has room for).' }),
});

/** What the OpenAPI document and `--print-schema` show: one of the two. */
export const PushChannelFile = T.Union([AndroidChannelFile, IosCategoryFile], { description: 'An ANDROID app takes ANDROID_CHANNEL, an IOS app IOS_CATEGORY.' });
export type PushChannelFile = Static<typeof AndroidChannelFile> | Static<typeof IosCategoryFile>;

const checkAndroid = checker(AndroidChannelFile);
const checkIos = checker(IosCategoryFile);
export const checkPushChannelFile = checker(PushChannelFile);

/** The first violation of a channel file, checked against the schema of the kind it names. */
export function pushChannelViolation(file: unknown): Violation | null {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) return violation(ViolationCode.type, 'body', 'must be an object');
  const kind = (file as { kind?: unknown }).kind;
  if (kind === 'ANDROID_CHANNEL') return checkAndroid(file);
  if (kind === 'IOS_CATEGORY') {
    const bad = checkIos(file);
    if (bad) return bad;
    const ids = (file as Static<typeof IosCategoryFile>).actions.map((a) => a.id);
    const dup = ids.findIndex((id, i) => ids.indexOf(id) !== i);
    return dup >= 0 ? violation(ViolationCode.unique, `actions[${dup}].id`, `${ids[dup]} is used by an earlier action`) : null;
  }
  return violation(ViolationCode.value, 'kind', `must be one of ${PUSH_CHANNEL_KINDS.join(', ')}`);
}

/** The JSON Schema of the file (`engage push-channels create --print-schema`). */
export const pushChannelJsonSchema = () => JSON.parse(JSON.stringify(checkPushChannelFile.schema)) as unknown;

/** The stored definition of a checked file, properties in one order. */
export function pushChannelDefinitionOf(f: PushChannelFile): PushChannelDefinition {
  if (f.kind === 'ANDROID_CHANNEL') {
    return {
      key: f.key,
      kind: f.kind,
      name: f.name,
      ...(f.description !== undefined ? { description: f.description } : {}),
      importance: f.importance,
      ...(f.sound !== undefined ? { sound: f.sound } : {}),
    };
  }
  return {
    key: f.key,
    kind: f.kind,
    actions: f.actions.map((a) => ({
      id: a.id,
      title: a.title,
      ...(a.foreground !== undefined ? { foreground: a.foreground } : {}),
      ...(a.destructive !== undefined ? { destructive: a.destructive } : {}),
      ...(a.authenticationRequired !== undefined ? { authenticationRequired: a.authenticationRequired } : {}),
    })),
  };
}
