import { Enum, Strict, T, type Static } from '../../platform/http/schema';
import { BundleId, EnvironmentName } from '../environments/schemas';
import { SyncSettingsUpdate } from '../definitions/settings';
import { TestGroupCreate } from '../messaging/admin-schemas';
import { FreeObject, KEY_PATTERN, Platform } from '../shared/schemas';
import { ListFile } from '../preferences/schemas';
import { KIND_OF_PLATFORM, pushChannelViolation } from '../push-channels/schemas';

/**
 * The engagement half of `engage apply`'s file (issue 24; docs/apply.md): `environments`, each
 * with its apps (and their provider credentials, from files or environment variables), access
 * keys, templates and test groups, by their natural keys (environment, app and test-group name,
 * access key name, template key). Secrets never appear in the file: only the names of the
 * variables or files that hold them.
 */

const EnvName = () => T.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 128, description: 'name of an environment variable' });
const FilePath = () => T.String({ minLength: 1, maxLength: 4096, description: 'a file path, relative to the configuration file' });
const ObjectName = () => T.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only spaces' });

/** APNs token authentication: the .p8 key from a file or a variable (exactly one), its key id, team id and topic (the bundle id). */
const ApplyApns = Strict({
  keyId: T.String({ pattern: '^[A-Za-z0-9]{1,64}$' }),
  teamId: T.String({ pattern: '^[A-Za-z0-9]{1,64}$' }),
  topic: T.String({ minLength: 1, maxLength: 255, description: 'the apns-topic: the app\'s bundle id' }),
  sandbox: T.Optional(T.Boolean({ description: 'the APNs development environment; default false' })),
  privateKeyFile: T.Optional(FilePath()),
  privateKeyEnv: T.Optional(EnvName()),
});

/** FCM HTTP v1: the Google service-account JSON key from a file or a variable (exactly one). */
const ApplyFcm = Strict({
  serviceAccountFile: T.Optional(FilePath()),
  serviceAccountEnv: T.Optional(EnvName()),
});

const ApplyApp = Strict({
  name: ObjectName(),
  platform: Platform,
  bundleId: T.Optional(BundleId()),
  apns: T.Optional(ApplyApns),
  fcm: T.Optional(ApplyFcm),
  /** Its notification channels (ANDROID) or categories (IOS), each a channel file (docs/preferences.md), by key. */
  pushChannels: T.Optional(T.Array(FreeObject({ description: 'a push channel file (docs/preferences.md): ANDROID_CHANNEL for an ANDROID app, IOS_CATEGORY for an IOS app' }))),
});

const ApplyAccessKey = Strict({
  /** The key's name: what apply finds it by among the environment's active keys. */
  name: ObjectName(),
  apps: T.Array(ObjectName(), { minItems: 1, uniqueItems: true, description: 'the apps (by name) the key may act for' }),
  /** The key (svc_key_…) from this variable; absent: generated at creation and printed once. */
  keyEnv: T.Optional(EnvName()),
});

const ApplyTemplate = Strict({
  key: T.String({ pattern: KEY_PATTERN }),
  /** A template file (`engage templates create --file`'s format), relative to the configuration file. */
  file: T.Optional(FilePath()),
  /** The template file's content inline (its `key` may be left out). */
  definition: T.Optional(T.Record(T.String(), T.Unknown())),
});

const ApplyTestGroup = Strict({ ...TestGroupCreate.properties });

const ApplyFlag = Strict({
  key: T.String({ pattern: KEY_PATTERN }),
  /** A flag file (`engage flags create --file`'s format, docs/flags.md), relative to the configuration file. */
  file: T.Optional(FilePath()),
  /** The flag file's content inline (its `key` may be left out). */
  definition: T.Optional(T.Record(T.String(), T.Unknown())),
});

const ApplyInAppMessage = Strict({
  key: T.String({ pattern: KEY_PATTERN }),
  /** A message file (`engage in-app create --file`'s format, docs/in-app.md), relative to the configuration file. */
  file: T.Optional(FilePath()),
  /** The message file's content inline (its `key` may be left out). */
  definition: T.Optional(T.Record(T.String(), T.Unknown())),
  /** ACTIVE (default): devices get the file's definition (apply publishes it); PAUSED: devices get nothing, the file is the latest edit. */
  status: T.Optional(Enum(['ACTIVE', 'PAUSED'] as const)),
});

const ApplyAutomation = Strict({
  key: T.String({ pattern: KEY_PATTERN }),
  /** An automation file (`engage automations create --file`'s format, docs/automations.md), relative to the configuration file. */
  file: T.Optional(FilePath()),
  /** The automation file's content inline (its `key` may be left out). */
  definition: T.Optional(T.Record(T.String(), T.Unknown())),
  /** ACTIVE (default): published, takes runs; PAUSED: published and paused (no new runs, runs under way held). The API entry's key is not managed (engage automations rotate-key). */
  status: T.Optional(Enum(['ACTIVE', 'PAUSED'] as const)),
});

export const ApplyEnvironment = Strict({
  name: EnvironmentName(),
  displayName: T.Optional(T.String({ minLength: 1, maxLength: 100, pattern: '\\S' })),
  /** The slug of the identity tenant whose subjects are the environment's external ids. */
  identityTenant: T.Optional(T.String({ minLength: 1, maxLength: 63 })),
  /** The environment's sync refresh interval (docs/sync.md "Settings"). */
  syncRefreshAfterSeconds: T.Optional(SyncSettingsUpdate.properties.refreshAfterSeconds),
  /** The least time between two in-app messages on a device (docs/in-app.md "Caps and the minimum interval"). */
  inAppMinIntervalSeconds: T.Optional(SyncSettingsUpdate.properties.inAppMinIntervalSeconds),
  apps: T.Optional(T.Array(ApplyApp)),
  accessKeys: T.Optional(T.Array(ApplyAccessKey)),
  templates: T.Optional(T.Array(ApplyTemplate)),
  testGroups: T.Optional(T.Array(ApplyTestGroup)),
  flags: T.Optional(T.Array(ApplyFlag)),
  /** Subscription lists, each a list file (docs/preferences.md), by key. */
  lists: T.Optional(T.Array(ListFile)),
  /** In-app messages, each a message file (docs/in-app.md), by key: created, edited and published as declared. */
  inAppMessages: T.Optional(T.Array(ApplyInAppMessage)),
  /** Automations, each an automation file (docs/automations.md), by key: created, published (or paused) and edited into new versions as declared. */
  automations: T.Optional(T.Array(ApplyAutomation)),
});

export const ApplyEnvironments = T.Array(ApplyEnvironment);

export type ApplyEnvironment = Static<typeof ApplyEnvironment>;
export type ApplyApp = Static<typeof ApplyApp>;
export type ApplyAccessKey = Static<typeof ApplyAccessKey>;
export type ApplyTemplate = Static<typeof ApplyTemplate>;
export type ApplyTestGroup = Static<typeof ApplyTestGroup>;
export type ApplyFlag = Static<typeof ApplyFlag>;
export type ApplyInAppMessage = Static<typeof ApplyInAppMessage>;
export type ApplyAutomation = Static<typeof ApplyAutomation>;

/**
 * `environments[i]…: reason` for the first problem the schema cannot state: duplicate keys, one
 * source per secret, a key's apps among the environment's declared apps, a template's source.
 * `declaredTenants`: the slugs of the file's tenants (an identityTenant may be one of them).
 */
export function environmentsProblem(environments: readonly ApplyEnvironment[]): string | null {
  const dup = <X>(items: readonly X[] | undefined, keyOf: (x: X) => string, at: string, field: string): string | null => {
    const seen = new Set<string>();
    for (const [i, item] of (items ?? []).entries()) {
      const k = keyOf(item);
      if (seen.has(k)) return `${at}[${i}].${field}: duplicate ${k}`;
      seen.add(k);
    }
    return null;
  };
  const problems: (string | null)[] = [dup(environments, (e) => e.name, 'environments', 'name')];
  for (const [i, e] of environments.entries()) {
    const at = `environments[${i}]`;
    problems.push(dup(e.apps, (a) => a.name, `${at}.apps`, 'name'), dup(e.accessKeys, (k) => k.name, `${at}.accessKeys`, 'name'));
    problems.push(dup(e.templates, (t) => t.key, `${at}.templates`, 'key'), dup(e.testGroups, (g) => g.name, `${at}.testGroups`, 'name'));
    problems.push(dup(e.flags, (f) => f.key, `${at}.flags`, 'key'), dup(e.lists, (l) => l.key, `${at}.lists`, 'key'));
    problems.push(dup(e.inAppMessages, (m) => m.key, `${at}.inAppMessages`, 'key'), dup(e.automations, (m) => m.key, `${at}.automations`, 'key'));
    // Flags, in-app messages and automations: a file or an inline definition, whose key (if given) is the declared one.
    for (const [section, list] of [['flags', e.flags], ['inAppMessages', e.inAppMessages], ['automations', e.automations]] as const) {
      for (const [j, f] of (list ?? []).entries()) {
        if (!f.file === !f.definition) problems.push(`${at}.${section}[${j}]: must have exactly one of file and definition`);
        const inline = f.definition?.key;
        if (inline !== undefined && inline !== f.key) problems.push(`${at}.${section}[${j}].definition.key: must be ${f.key} (or left out)`);
      }
    }
    for (const [j, a] of (e.apps ?? []).entries()) {
      const app = `${at}.apps[${j}]`;
      if (a.apns && a.platform !== 'IOS') problems.push(`${app}.apns: APNs credentials are for IOS apps`);
      if (a.fcm && a.platform !== 'ANDROID') problems.push(`${app}.fcm: FCM credentials are for ANDROID apps`);
      if (a.apns && !a.apns.privateKeyFile === !a.apns.privateKeyEnv) problems.push(`${app}.apns: must have exactly one of privateKeyFile and privateKeyEnv`);
      if (a.fcm && !a.fcm.serviceAccountFile === !a.fcm.serviceAccountEnv) problems.push(`${app}.fcm: must have exactly one of serviceAccountFile and serviceAccountEnv`);
      for (const [k, c] of (a.pushChannels ?? []).entries()) {
        const bad = pushChannelViolation(c);
        if (bad) problems.push(`${app}.pushChannels[${k}].${bad.message}`);
        else if (c.kind !== KIND_OF_PLATFORM[a.platform]) problems.push(`${app}.pushChannels[${k}].kind: app ${a.name} is ${a.platform}: it takes ${KIND_OF_PLATFORM[a.platform]}`);
      }
      problems.push(dup(a.pushChannels, (c) => String(c.key), `${app}.pushChannels`, 'key'));
    }
    const envs = new Map<string, string>();
    for (const [j, k] of (e.accessKeys ?? []).entries()) {
      // The apps of a key are declared in the same environment: the file says all the key depends on.
      const m = k.apps.findIndex((name) => !(e.apps ?? []).some((a) => a.name === name));
      if (m >= 0) problems.push(`${at}.accessKeys[${j}].apps[${m}]: app ${k.apps[m]} is not among the environment's apps in this file`);
      if (k.keyEnv && envs.has(k.keyEnv)) problems.push(`${at}.accessKeys[${j}].keyEnv: ${k.keyEnv} is already the key of ${envs.get(k.keyEnv)}`);
      if (k.keyEnv) envs.set(k.keyEnv, `${at}.accessKeys[${j}]`);
    }
    for (const [j, t] of (e.templates ?? []).entries()) {
      if (!t.file === !t.definition) problems.push(`${at}.templates[${j}]: must have exactly one of file and definition`);
      const inline = t.definition?.key;
      if (inline !== undefined && inline !== t.key) problems.push(`${at}.templates[${j}].definition.key: must be ${t.key} (or left out)`);
    }
  }
  return problems.find((p) => p !== null) ?? null;
}
