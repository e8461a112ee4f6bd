/**
 * What a transactional send reads of its recipients' preferences (issue 26 PREFERENCES): the
 * list a template names, each installation's choice for it, the bound profile's PUSH choice, and
 * the profile's quiet hours with the time zone they are read in. Read in the send's own
 * transaction (`recipientPreferencesIn(tx, …)`), so a choice committed before the send counts.
 * Installation and profile state belong to engage/profiles; this is the read model the send
 * uses, as messaging's recipient query reads installations.
 *
 * The rules (docs/decisions.md "Sends and preferences"):
 * - A critical list is never skipped. Otherwise an INSTALLATION_ID recipient is skipped when the
 *   installation is unsubscribed from the list (installation subscriptions are per list), a
 *   profile recipient (EXTERNAL_ID, PROFILE) when the profile is unsubscribed from it on PUSH
 *   (profile subscriptions are per channel); no choice means the list's `defaultSubscribed`.
 * - Quiet hours: the profile attribute `quiet_hours` = `{start, end}` ("HH:MM"), read on the wall
 *   clock of the profile attribute `time_zone` when it names a zone, else the installation's own.
 */
import { valuesList, type Sql } from '../../platform/store/sql';
import { checkQuietHours, isTimeZone, quietUntil, type QuietHours } from './quiet-hours';
import type { ListDefinition } from './read-store';

/** The profile attributes the preferences read (pattern K keys; documented in docs/preferences.md). */
export const QUIET_HOURS_ATTRIBUTE = 'quiet_hours';
export const TIME_ZONE_ATTRIBUTE = 'time_zone';

export interface RecipientPreference {
  installationId: string;
  profileId: string | null;
  /** The installation's own IANA zone, as its SDK reported it. */
  installationTimeZone: string;
  /** The installation's choice for the list; undefined: never chose. */
  installationSubscribed?: boolean;
  /** The bound profile's PUSH choice for the list; undefined: never chose (or no profile). */
  profileSubscribed?: boolean;
  /** The profile's `quiet_hours` attribute (parsed JSON); undefined when unset. */
  quietHours?: unknown;
  /** The profile's `time_zone` attribute (parsed JSON); undefined when unset. */
  timeZone?: unknown;
}

const LIST = `SELECT definition FROM subscription_lists WHERE environment_id = ? AND key = ? AND deleted = 0`;
const RECIPIENTS = (n: number) => `SELECT i.id AS "installationId", i.profile_id AS "profileId", i.timezone AS "installationTimeZone",
    (SELECT s.subscribed FROM installation_subscriptions s WHERE s.installation_id = i.id AND s.list = ?) AS "installationSubscribed",
    (SELECT ps.subscribed FROM profile_subscriptions ps WHERE ps.profile_id = i.profile_id AND ps.list = ? AND ps.channel = 'PUSH') AS "profileSubscribed",
    (SELECT pa.value FROM profile_attributes pa WHERE pa.profile_id = i.profile_id AND pa.key = '${QUIET_HOURS_ATTRIBUTE}') AS "quietHours",
    (SELECT pa.value FROM profile_attributes pa WHERE pa.profile_id = i.profile_id AND pa.key = '${TIME_ZONE_ATTRIBUTE}') AS "timeZone"
  FROM installations i WHERE i.environment_id = ? AND i.id IN (${valuesList(1, n).slice(1, -1)})`;

type Raw = { installationId: string; profileId: string | null; installationTimeZone: string; installationSubscribed: unknown; profileSubscribed: unknown; quietHours: string | null; timeZone: string | null };

const bool = (v: unknown) => (v === null || v === undefined ? undefined : Number(v) === 1 || v === true);
function json(v: string | null): unknown {
  if (v === null) return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

export function createSendPreferenceStore(db: Sql) {
  return {
    /** The live (not deleted) list of the environment, or undefined. */
    async list(environmentId: string, key: string): Promise<ListDefinition | undefined> {
      const r = await db.get<{ definition: string }>(LIST, [environmentId, key]);
      return r && (JSON.parse(r.definition) as ListDefinition);
    },
    /** Each installation's preferences (installations of other environments are not read). `list` null: no list choices. */
    async recipients(environmentId: string, installationIds: readonly string[], list: string | null): Promise<Map<string, RecipientPreference>> {
      const out = new Map<string, RecipientPreference>();
      for (let i = 0; i < installationIds.length; i += 500) {
        const part = installationIds.slice(i, i + 500);
        const rows = await db.all<Raw>(RECIPIENTS(part.length), [list ?? '', list ?? '', environmentId, ...part]);
        for (const r of rows)
          out.set(r.installationId, {
            installationId: r.installationId,
            profileId: r.profileId,
            installationTimeZone: r.installationTimeZone,
            installationSubscribed: list === null ? undefined : bool(r.installationSubscribed),
            profileSubscribed: list === null ? undefined : bool(r.profileSubscribed),
            quietHours: json(r.quietHours),
            timeZone: json(r.timeZone),
          });
      }
      return out;
    },
  };
}

export type SendPreferenceStore = ReturnType<typeof createSendPreferenceStore>;
export type SendPreferencesTx = { sendPreferences: SendPreferenceStore };

/** The list and the recipients' preferences, in the caller's transaction. */
export function recipientPreferencesIn(tx: SendPreferencesTx, environmentId: string, installationIds: readonly string[], list: string | null) {
  return tx.sendPreferences.recipients(environmentId, installationIds, list);
}
export function liveListIn(tx: SendPreferencesTx, environmentId: string, key: string) {
  return tx.sendPreferences.list(environmentId, key);
}

/** Whether the list lets the send reach this recipient (docs/decisions.md "Sends and preferences"). */
export function listAllows(list: ListDefinition, recipientType: 'INSTALLATION_ID' | 'EXTERNAL_ID' | 'PROFILE', p: RecipientPreference | undefined): boolean {
  if (list.critical) return true;
  const choice = recipientType === 'INSTALLATION_ID' ? p?.installationSubscribed : p?.profileSubscribed;
  return choice ?? list.defaultSubscribed;
}

/**
 * When the profile's quiet hours around `at` end, or undefined when the installation reaches no
 * profile with quiet hours, or `at` is outside them. A value that cannot be read (checkQuietHours)
 * holds nothing back.
 */
export function quietHoursEnd(p: RecipientPreference | undefined, at: Date): Date | undefined {
  if (!p || p.profileId === null || p.quietHours === undefined || p.quietHours === null) return undefined;
  // A `time_zone` attribute the runtime does not know is as none: the installation's zone is the next best guess.
  const zone = isTimeZone(p.timeZone) ? p.timeZone : p.installationTimeZone;
  if (checkQuietHours(p.quietHours, zone)) return undefined;
  return quietUntil(p.quietHours as QuietHours, zone, at);
}
