/**
 * The documents of the sync modules (issue 26), derived for one installation in its current
 * generation from the environment's definitions (definitions.ts) and the installation's and
 * profile's state. Pure: the service reads, this derives.
 *
 * Each document says what it is derived from (`def`: its definition's revision, 0 for none;
 * `inst`, `prof`: whether the installation's or the profile's state enters it), which is how a
 * delta decides what to send: a document whose sources moved past the cursor's revisions is
 * sent (with its payload possibly unchanged, which the protocol allows); nothing else is. Its
 * `revision` is the sum of its sources' revisions, so it grows with every change that may
 * change it, and never exceeds the response's revision (the sum of all three).
 */
import type { FlagContext, FlagResult } from '../flags/evaluate';
import { messagePayload, transitionsOf, type MessageAudience } from '../in-app/documents';
import type { ImpressionWindow } from '../in-app/read-store';
import { checkQuietHours, type QuietHours } from '../preferences/quiet-hours';
import { LIST_CHANNELS, type ListChannel } from '../preferences/read-store';
import type { SdkModule } from './cursor';
import type { Definitions } from './definitions';
import { shared } from './wire';

export interface Sources {
  def: number;
  inst: boolean;
  prof: boolean;
  /** Instants (ms) at which the document may change without a write (an in-app message's schedule or cap window). */
  at?: readonly number[];
}

/**
 * A delta's view of the cursor it answers: whether a document derived from `sources` may have
 * changed since, and the revision to send for it. Absent for a full snapshot.
 */
export interface Delta {
  changed(sources: Sources): boolean;
  revision(sources: Sources): number;
}

export interface SyncDocument {
  module: SdkModule;
  key: string;
  payload: Record<string, unknown>;
  sources: Sources;
}

export interface Tombstone {
  module: SdkModule;
  key: string;
  revision: number;
}

/** What an installation's documents are derived from, besides the definitions. */
export interface InstallationFacts {
  installationId: string;
  appId: string;
  platform: string;
  appVersion: string;
  osVersion: string | null;
  locale: string;
  timezone: string;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushTokenHeld: boolean;
  attributes: Record<string, unknown>;
  /** List key → subscribed (the installation's explicit choices). */
  subscriptions: Record<string, boolean>;
  /** The profile of the current generation (anonymous ones too). */
  profile: {
    id: string;
    externalId: string | null;
    bound: boolean;
    attributes: Record<string, unknown>;
    tags: string[];
    subscriptions: { list: string; channel: string; subscribed: boolean }[];
  };
  /** What profile-sticky flags served the installation while it was anonymous (flag key → variant). */
  sticky: Record<string, { variantKey: string; experimentId?: string }>;
  /** Its impression windows of capped in-app messages, by message id (read only when a message has a cap). */
  impressions: ReadonlyMap<string, ImpressionWindow>;
  /** Until when automations made messages eligible for its profile (read only when a message is automationOnly). */
  grants: ReadonlyMap<string, number>;
  /** The environment's in-app minimum interval and the definitions revision of its last change. */
  inAppSettings: { minIntervalSeconds: number; revision: number };
}

/** Profile attribute keys the PREFERENCES module reads (docs/sync.md "Quiet hours"). */
export const QUIET_HOURS_ATTRIBUTE = 'quiet_hours';
export const TIME_ZONE_ATTRIBUTE = 'time_zone';

export const PREFERENCE_KEYS = { quietHours: 'quiet-hours', list: (k: string) => `list/${k}` } as const;
export const IN_APP_KEYS = { settings: 'settings', message: (k: string) => `message/${k}` } as const;
export const PUSH_KEYS = { state: 'push/state', channel: (k: string) => `channel/${k}`, category: (k: string) => `category/${k}` } as const;

/** The flag evaluation context of an installation: its profile only while bound (docs/decisions.md "Flag evaluation core"). */
export function flagContext(f: InstallationFacts): FlagContext {
  const p = f.profile;
  const profileSubs: Record<string, ('PUSH' | 'EMAIL' | 'SMS' | 'WHATSAPP')[]> = {};
  if (p.bound) {
    for (const s of p.subscriptions) if (s.subscribed) (profileSubs[s.list] ??= []).push(s.channel as ListChannel);
  }
  return {
    installationId: f.installationId,
    app: f.appId,
    platform: f.platform,
    appVersion: f.appVersion,
    osVersion: f.osVersion,
    locale: f.locale,
    timeZone: f.timezone,
    attributes: f.attributes,
    subscriptions: Object.keys(f.subscriptions).filter((k) => f.subscriptions[k]),
    profile: p.bound ? { id: p.id, externalId: p.externalId ?? '', attributes: p.attributes, tags: p.tags, subscriptions: profileSubs } : null,
    anonymousAssignments: p.bound ? f.sticky : null,
  };
}

/**
 * The documents and tombstones of `modules` at `nowMs`, in a deterministic order (module order,
 * then key), and the next instant (ms) at which a document may change without a write (Infinity: none).
 */
export function deriveDocuments(
  modules: readonly SdkModule[],
  defs: Definitions,
  f: InstallationFacts,
  delta: Delta | undefined,
  nowMs: number,
  onFlag?: (key: string, result: FlagResult) => void,
): { documents: SyncDocument[]; tombstones: Tombstone[]; wakeMs: number } {
  const documents: SyncDocument[] = [];
  const tombstones: Tombstone[] = [];
  let wakeMs = Infinity;
  // A document the installation does not have (a definition archived, deleted, not for its app;
  // a message it is not eligible for) whose sources changed since the cursor: the installation
  // may have held it, so it gets a tombstone.
  const gone = (module: SdkModule, key: string, sources: Sources) => {
    if (delta?.changed(sources)) tombstones.push({ module, key, revision: delta.revision(sources) });
  };
  const definitionOnly = (revision: number): Sources => ({ def: revision, inst: false, prof: false });
  // The flags' evaluation context, made once: flags and in-app audiences both read it.
  let context: FlagContext | undefined;
  const contextOf = () => (context ??= flagContext(f));
  for (const module of modules) {
    if (module === 'FEATURE_FLAGS') {
      const ctx = contextOf();
      for (const flag of defs.flags) {
        if (flag.status !== 'ACTIVE' || (flag.apps && !flag.apps.has(f.appId.toLowerCase()))) {
          gone(module, flag.key, definitionOnly(flag.revision));
          continue;
        }
        const r = flag.compiled.evaluate(ctx);
        onFlag?.(flag.key, r);
        documents.push({ module, key: flag.key, payload: flagPayload(flag.version, r), sources: flag.sources });
      }
    } else if (module === 'PREFERENCES') {
      for (const list of defs.lists) {
        if (list.deleted) {
          gone(module, PREFERENCE_KEYS.list(list.key), definitionOnly(list.revision));
          continue;
        }
        documents.push({ module, key: PREFERENCE_KEYS.list(list.key), payload: listPayload(list.definition, f), sources: { def: list.revision, inst: true, prof: true } });
      }
      documents.push({ module, key: PREFERENCE_KEYS.quietHours, payload: quietHoursPayload(f), sources: { def: 0, inst: true, prof: true } });
    } else if (module === 'PUSH') {
      for (const ch of defs.channelsOf(f.appId)) {
        const key = ch.definition.kind === 'IOS_CATEGORY' ? PUSH_KEYS.category(ch.key) : PUSH_KEYS.channel(ch.key);
        if (ch.deleted) gone(module, key, definitionOnly(ch.revision));
        else documents.push({ module, key, payload: ch.payload, sources: definitionOnly(ch.revision) });
      }
      documents.push({
        module,
        key: PUSH_KEYS.state,
        payload: { subscription: f.pushSubscription, permission: f.pushPermission, tokenHeld: f.pushTokenHeld, privacy: f.privacy },
        sources: { def: 0, inst: true, prof: false },
      });
    } else if (module === 'IN_APP') {
      const audience: MessageAudience = { appId: f.appId, locale: f.locale, installationId: f.installationId, context: contextOf(), impressions: f.impressions, grants: f.grants };
      for (const m of defs.messages) {
        const at = transitionsOf(m, audience);
        for (const t of at) if (t > nowMs && t < wakeMs) wakeMs = t;
        // The locale (and the cap's windows) are the installation's: every message reads it.
        const sources: Sources = { def: m.revision, inst: true, prof: m.readsProfile, ...(at.length > 0 ? { at } : {}) };
        const payload = messagePayload(m, audience, nowMs);
        if (payload) documents.push({ module, key: IN_APP_KEYS.message(m.key), payload, sources });
        else gone(module, IN_APP_KEYS.message(m.key), sources);
      }
      const s = f.inAppSettings;
      documents.push({ module, key: IN_APP_KEYS.settings, payload: { minIntervalSeconds: s.minIntervalSeconds }, sources: definitionOnly(s.revision) });
    }
  }
  // Code-unit order of keys, never the database's collation: the same order on every engine and process.
  return { documents: sortWithinModules(documents, modules), tombstones: sortWithinModules(tombstones, modules), wakeMs };
}

/**
 * A flag's document payload for one outcome. Evaluation answers with a few frozen results made
 * when the flag is compiled (flags/evaluate.ts), one per outcome: the payload is made once per
 * result and shared by every installation served it, its JSON text with it (wire.ts).
 */
const flagPayloads = new WeakMap<FlagResult, Record<string, unknown>>();
function flagPayload(version: number, r: FlagResult): Record<string, unknown> {
  let payload = flagPayloads.get(r);
  if (payload === undefined) {
    // What FLAG_EXPOSED reports back: the experiment and the flag's version that served it.
    payload = shared(r.experimentId === undefined ? { variantKey: r.variantKey, value: r.value, reason: r.reason } : { variantKey: r.variantKey, value: r.value, reason: r.reason, experimentId: r.experimentId, revision: version });
    if (Object.isFrozen(r)) flagPayloads.set(r, payload);
  }
  return payload;
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function sortWithinModules<D extends { module: SdkModule; key: string }>(docs: D[], modules: readonly SdkModule[]): D[] {
  if (docs.length < 2) return docs;
  const order: Partial<Record<SdkModule, number>> = {};
  modules.forEach((m, i) => (order[m] = i));
  return docs.sort((a, b) => (a.module === b.module ? byKey(a, b) : order[a.module]! - order[b.module]!));
}

/** A list's document: its definition and the installation's and profile's effective choices on it. */
function listPayload(def: import('../preferences/read-store').ListDefinition, f: InstallationFacts): Record<string, unknown> {
  const installationChose = Object.prototype.hasOwnProperty.call(f.subscriptions, def.key);
  const profileChoices: Record<string, { subscribed: boolean; chosen: boolean }> = {};
  for (const channel of LIST_CHANNELS) {
    if (!def.channels.includes(channel)) continue;
    const chosen = f.profile.subscriptions.find((s) => s.list === def.key && s.channel === channel);
    profileChoices[channel] = { subscribed: def.critical || (chosen ? chosen.subscribed : def.defaultSubscribed), chosen: chosen !== undefined };
  }
  return {
    key: def.key,
    displayName: def.displayName,
    ...(def.description !== undefined ? { description: def.description } : {}),
    channels: def.channels,
    critical: def.critical,
    defaultSubscribed: def.defaultSubscribed,
    installation: { subscribed: def.critical || (installationChose ? f.subscriptions[def.key] : def.defaultSubscribed), chosen: installationChose },
    profile: profileChoices,
  };
}

/** The profile's quiet hours as sends read them (preferences/quiet-hours.ts): null when unset or unreadable. */
function quietHoursPayload(f: InstallationFacts): Record<string, unknown> {
  const zoneAttr = f.profile.attributes[TIME_ZONE_ATTRIBUTE];
  const timeZone = typeof zoneAttr === 'string' && zoneAttr !== '' ? zoneAttr : f.timezone;
  const raw = f.profile.attributes[QUIET_HOURS_ATTRIBUTE];
  if (raw === undefined || raw === null) return { quietHours: null, timeZone };
  const problem = checkQuietHours(raw, timeZone);
  if (problem) return { quietHours: null, timeZone, problem: problem.message };
  const q = raw as QuietHours;
  return { quietHours: { start: q.start, end: q.end }, timeZone };
}
