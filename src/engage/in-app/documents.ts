/**
 * The IN_APP sync module's documents (issue 27 "In-app messages" point 2), pure: a published
 * message compiled once per definitions revision (`compileMessage`), then for one installation
 * either its display-ready document (the variant it is bucketed into, the LAYOUT of its locale,
 * its triggers, cap and schedule: what the SDK needs to show it offline from local triggers) or
 * nothing, when it is not eligible: not ACTIVE, not for the installation's app, outside its
 * schedule, outside its audience, capped for the installation, or without content in any locale
 * the installation accepts. The audience is evaluated here and never reaches the device.
 *
 * Eligibility changes with time as well as with writes (a schedule opens or closes, a cap's window
 * ends): each message names those instants (`transitions`), so the sync can send what changed
 * between a cursor and now, and wake the device when the next one comes.
 */
import { bucketerFor, chooseVariant, hashUnit } from '../flags/bucketing';
import { compileCondition, type FlagContext } from '../flags/evaluate';
import { parseDateTime } from '../../platform/http/schema';
import { localeChain, pick } from '../inbox/content';
import type { Layout, MessageDefinition, MessageStatus } from './schemas';
import type { ImpressionWindow, PublishedMessageRow } from './read-store';

export interface MessageEntry {
  key: string;
  /** INTERACTION_TRACKED's experienceId. */
  id: string;
  status: MessageStatus;
  version: number;
  /** The definitions revision of the message's last device-visible change. */
  revision: number;
  definition: MessageDefinition;
  /** Target apps (lower-case ids); undefined: every app. */
  apps: ReadonlySet<string> | undefined;
  audience: (ctx: FlagContext) => boolean;
  /** Whether the audience or the variant split reads the profile. */
  readsProfile: boolean;
  startsMs: number | undefined;
  endsMs: number | undefined;
  cap: { impressions: number; periodMs: number } | undefined;
  /** The variants (one with key null for a message without variants) and their weights. */
  variants: { key: string | null; content: Record<string, Layout> }[];
  choose: (unit: string) => number;
  /** Shown only while an automation's grant for the profile lasts. */
  automationOnly: boolean;
}

export function compileMessage(row: PublishedMessageRow): MessageEntry {
  const d = JSON.parse(row.publishedDefinition) as MessageDefinition;
  const tests = (d.audience ?? []).map(compileCondition);
  const variants = d.variants ? d.variants.map((v) => ({ key: v.key, content: v.content })) : [{ key: null, content: d.content! }];
  const weights = d.variants ? d.variants.map((v) => v.weight) : [1];
  const bucket = bucketerFor(row.id);
  const readsProfile =
    (d.audience ?? []).some((c) => c.attribute === 'profile' || c.attribute.startsWith('profile.')) || (d.variants !== undefined && d.bucketBy === 'profile') || d.automationOnly === true;
  return {
    key: row.key,
    id: row.id,
    status: row.status,
    version: row.publishedVersion,
    revision: row.revision,
    definition: d,
    apps: d.targetApps && d.targetApps.length > 0 ? new Set(d.targetApps.map((a) => a.toLowerCase())) : undefined,
    audience: (ctx) => tests.every((t) => t(ctx)),
    readsProfile,
    startsMs: d.schedule?.startsAt !== undefined ? parseDateTime(d.schedule.startsAt) : undefined,
    endsMs: d.schedule?.endsAt !== undefined ? parseDateTime(d.schedule.endsAt) : undefined,
    cap: d.frequencyCap ? { impressions: d.frequencyCap.impressions, periodMs: d.frequencyCap.periodSeconds * 1000 } : undefined,
    variants,
    automationOnly: d.automationOnly === true,
    choose: d.variants
      ? (unit) => {
          const hashed = hashUnit(unit);
          const i = hashed === undefined ? 0 : chooseVariant(bucket(hashed), weights);
          return i < 0 ? 0 : i;
        }
      : () => 0,
  };
}

/** What an installation brings to its messages: its app, locale, evaluation context and impression windows. */
export interface MessageAudience {
  appId: string;
  locale: string;
  installationId: string;
  context: FlagContext;
  impressions: ReadonlyMap<string, ImpressionWindow>;
  /** Until when automations made messages eligible for the profile (message id → ms). */
  grants: ReadonlyMap<string, number>;
}

/**
 * The instants at which the message's eligibility for this installation may change without a
 * write: its schedule's bounds, and the end of a cap's window that holds the installation back.
 */
export function transitionsOf(m: MessageEntry, a: MessageAudience): number[] {
  const at: number[] = [];
  if (m.startsMs !== undefined) at.push(m.startsMs);
  if (m.endsMs !== undefined) at.push(m.endsMs);
  const w = m.cap && a.impressions.get(m.id);
  if (m.cap && w && w.count >= m.cap.impressions) at.push(w.windowStartMs + m.cap.periodMs);
  const granted = m.automationOnly ? a.grants.get(m.id) : undefined;
  if (granted !== undefined) at.push(granted);
  return at;
}

/** The message's document payload for the installation at `nowMs`, or undefined when it is not eligible. */
export function messagePayload(m: MessageEntry, a: MessageAudience, nowMs: number): Record<string, unknown> | undefined {
  if (m.status !== 'ACTIVE') return undefined;
  if (m.apps && !m.apps.has(a.appId.toLowerCase())) return undefined;
  if (m.startsMs !== undefined && nowMs < m.startsMs) return undefined;
  if (m.endsMs !== undefined && nowMs >= m.endsMs) return undefined;
  if (m.automationOnly && !((a.grants.get(m.id) ?? 0) > nowMs)) return undefined;
  const w = m.cap && a.impressions.get(m.id);
  if (m.cap && w && w.count >= m.cap.impressions && nowMs < w.windowStartMs + m.cap.periodMs) return undefined;
  if (!m.audience(a.context)) return undefined;
  const d = m.definition;
  const unit = d.bucketBy === 'profile' && a.context.profile ? a.context.profile.id : a.installationId;
  const variant = m.variants[m.choose(unit)];
  const layout = pick(variant.content, localeChain(a.locale, d));
  if (!layout) return undefined;
  return {
    experienceId: m.id,
    messageId: m.key,
    variantId: variant.key,
    version: m.version,
    priority: d.priority ?? 0,
    triggers: d.triggers,
    frequencyCap: d.frequencyCap ?? null,
    schedule: d.schedule ? { startsAt: d.schedule.startsAt ?? null, endsAt: d.schedule.endsAt ?? null } : null,
    locale: layout.locale,
    layout: layout.value,
  };
}
