/**
 * The definitions of an environment's sync modules as the sync derives documents from them,
 * compiled once per definitions revision and kept per process (a small LRU by environment).
 * A cache entry is valid exactly for its revision: a sync whose head shows another revision
 * loads the definitions again (in the same snapshot as the head), so every process serves what
 * was committed up to the revision its cursor names.
 */
import { compileFlag, type CompiledFlag } from '../flags/evaluate';
import type { FlagRow } from '../flags/read-store';
import type { FlagDefinition } from '../flags/schemas';
import { compileMessage, type MessageEntry } from '../in-app/documents';
import type { PublishedMessageRow } from '../in-app/read-store';
import type { ListDefinition, ListRow } from '../preferences/read-store';
import type { PushChannelDefinition, PushChannelRow } from '../push-channels/read-store';
import { shared } from './wire';

export interface FlagEntry {
  key: string;
  status: 'ACTIVE' | 'ARCHIVED';
  version: number;
  revision: number;
  definition: FlagDefinition;
  compiled: CompiledFlag;
  /** The target apps (lower-case ids); undefined: every app. */
  apps: ReadonlySet<string> | undefined;
  /** Whether a condition reads state of the installation that can change (versions, locale, zone, attributes, subscriptions). */
  readsInstallation: boolean;
  /** Whether a condition reads the profile (which changes without the installation). */
  readsProfile: boolean;
  /** Whether a profile-sticky split may record what it served an anonymous installation. */
  sticky: boolean;
  /** Its document's sources (documents.ts `Sources`), the same object for every installation. */
  sources: Readonly<{ def: number; inst: boolean; prof: boolean }>;
}

/** A push channel or category with its document payload (shared by every installation of its app: wire.ts). */
export type ChannelEntry = Omit<PushChannelRow, 'definition'> & { definition: PushChannelDefinition; payload: Record<string, unknown> };

export interface Definitions {
  revision: number;
  flags: FlagEntry[];
  lists: (Omit<ListRow, 'definition'> & { definition: ListDefinition })[];
  channelsOf(appId: string): readonly ChannelEntry[];
  /** The published in-app messages (issue 27), by key. */
  messages: MessageEntry[];
  /** Whether a message has a frequency cap (the sync then reads the installation's impression windows). */
  capped: boolean;
  /** Whether a message is shown only by automations' grants (the sync then reads the profile's). */
  granted: boolean;
}

/** Attributes an installation keeps for its life (its id, app and platform): reading them makes no document depend on its state. */
const FIXED = new Set(['installationId', 'app', 'platform']);

export function compileDefinitions(revision: number, flags: FlagRow[], lists: ListRow[], channels: PushChannelRow[], messageRows: PublishedMessageRow[]): Definitions {
  const messages = messageRows.map(compileMessage);
  const byApp = new Map<string, ChannelEntry[]>();
  for (const c of channels) {
    const definition = JSON.parse(c.definition) as PushChannelDefinition;
    const entry = { ...c, definition, payload: shared({ ...definition }) };
    const list = byApp.get(c.appId.toLowerCase());
    if (list) list.push(entry);
    else byApp.set(c.appId.toLowerCase(), [entry]);
  }
  return {
    revision,
    flags: flags.map(flagEntry),
    lists: lists.map((l) => ({ ...l, definition: JSON.parse(l.definition) as ListDefinition })),
    channelsOf: (appId) => byApp.get(appId.toLowerCase()) ?? [],
    messages,
    capped: messages.some((m) => m.cap !== undefined && m.status === 'ACTIVE'),
    granted: messages.some((m) => m.automationOnly && m.status === 'ACTIVE'),
  };
}

function flagEntry(row: FlagRow): FlagEntry {
  const definition = JSON.parse(row.definition) as FlagDefinition;
  let readsInstallation = false;
  let readsProfile = false;
  for (const rule of definition.rules) {
    for (const c of rule.conditions ?? []) {
      if (c.attribute === 'profile' || c.attribute.startsWith('profile.')) readsProfile = true;
      else if (!FIXED.has(c.attribute)) readsInstallation = true;
    }
  }
  const hasSplit = definition.rules.some((r) => r.rollout !== undefined || r.experiment !== undefined);
  return {
    key: row.key,
    status: row.status,
    version: row.version,
    revision: row.revision,
    definition,
    compiled: compileFlag(definition),
    apps: definition.targetApps && definition.targetApps.length > 0 ? new Set(definition.targetApps.map((a) => a.toLowerCase())) : undefined,
    readsInstallation,
    readsProfile,
    sticky: definition.bucketBy === 'profile-sticky' && hasSplit,
    sources: Object.freeze({ def: row.revision, inst: readsInstallation, prof: readsProfile }),
  };
}

/** Compiled definitions per environment, for the revision they were read at. */
export function createDefinitionsCache(capacity = 256) {
  const entries = new Map<string, Definitions>();
  return {
    get(environmentId: string, revision: number): Definitions | undefined {
      const d = entries.get(environmentId);
      if (!d || d.revision !== revision) return undefined;
      // Most recently used last.
      entries.delete(environmentId);
      entries.set(environmentId, d);
      return d;
    },
    put(environmentId: string, d: Definitions): void {
      const held = entries.get(environmentId);
      if (held && held.revision > d.revision) return;
      entries.delete(environmentId);
      entries.set(environmentId, d);
      while (entries.size > capacity) entries.delete(entries.keys().next().value!);
    },
  };
}
