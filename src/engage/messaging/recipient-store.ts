/**
 * A send's recipients, read in its transaction under row locks (statements of the messaging
 * store). A send writes rows naming its installations and its profile (deliveries carrying the
 * push token, the inbox entry, the ledger's index), and an erasure deletes such rows by owner id:
 * on PostgreSQL (READ COMMITTED) an erasure's statements do not see rows of a send that commits
 * after them, so the send must commit wholly before the erasure or find its recipient gone.
 * The send takes FOR KEY SHARE (what a foreign key check takes) on the profile, then on the
 * installations, each sorted by id; an erasure takes FOR UPDATE on the profiles it erases, then
 * on the installations (privacy/service.ts): one order, profiles before installations
 * (docs/decisions.md "Sends and erasures: one lock order"). FOR KEY SHARE lets ingest and
 * binding update the rows' other columns meanwhile. Nothing is locked on SQLite, whose writer is
 * alone (a send's transaction is BEGIN IMMEDIATE).
 */
import { forKeyShare, inList, type Sql } from '../../platform/store/sql';
import type { PushConditions } from './readiness';

/** What admission needs of an installation: its app and the per-installation push conditions. */
export interface RecipientInstallation extends PushConditions {
  id: string;
  appId: string;
}

/** What admission reads of an installation (`i`, its app `a`). */
const INSTALLATION = `i.id, i.app_id AS "appId", a.status AS "appStatus", i.platform, i.privacy, i.push_subscription AS "pushSubscription",
  i.push_permission AS "pushPermission", i.push_token AS "pushToken"`;
/** The installations a profile recipient reaches: its oldest 1,000. */
const PER_PROFILE = 1000;

type Row = RecipientInstallation & { profileId: string; createdAt: string };
const strip = ({ profileId: _p, createdAt: _c, ...i }: Row): RecipientInstallation => i;
const oldestFirst = (a: Row, b: Row) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function createRecipientStatements(db: Sql) {
  const share = forKeyShare(db.dialect);
  const shareI = forKeyShare(db.dialect, 'i');
  const ROW = `${INSTALLATION}, i.profile_id AS "profileId", i.created_at AS "createdAt"`;
  const SQL = {
    profile: (by: 'external_id' | 'id') => `SELECT id FROM profiles WHERE environment_id = ? AND ${by} = ?${share}`,
    profilesByExternalId: (n: number) => `SELECT id, external_id AS "externalId" FROM profiles WHERE environment_id = ? AND external_id IN (${inList(n)}) ORDER BY id${share}`,
    // Locked in id order; the profile_id test is repeated outside the sub-select so that a row
    // rebound while this waited for it is checked again (PostgreSQL re-reads a row it waited for).
    ofProfile: `SELECT ${ROW} FROM installations i JOIN apps a ON a.id = i.app_id
      WHERE i.environment_id = ? AND i.profile_id = ?
        AND i.id IN (SELECT id FROM installations WHERE environment_id = ? AND profile_id = ? ORDER BY created_at, id LIMIT ${PER_PROFILE})
      ORDER BY i.id${shareI}`,
    installation: `SELECT ${INSTALLATION} FROM installations i JOIN apps a ON a.id = i.app_id WHERE i.environment_id = ? AND i.id = ?${shareI}`,
    members: (ids: number, profiles: number) => `SELECT ${ROW} FROM installations i JOIN apps a ON a.id = i.app_id
      WHERE i.environment_id = ? AND (i.id IN (${ids ? inList(ids) : 'NULL'}) OR i.profile_id IN (${profiles ? inList(profiles) : 'NULL'}))
      ORDER BY i.id${shareI}`,
  } as const;
  const byExternalId = SQL.profile('external_id');
  const byId = SQL.profile('id');
  return {
    /**
     * The profile a recipient names and its installations (oldest first), the profile then the
     * installations locked until the transaction ends; undefined when there is no such profile
     * (also one erased while this waited for it).
     */
    async lockProfileRecipients(environmentId: string, by: 'externalId' | 'id', value: string): Promise<{ profileId: string; installations: RecipientInstallation[] } | undefined> {
      const profile = await db.get<{ id: string }>(by === 'externalId' ? byExternalId : byId, [environmentId, value]);
      if (!profile) return undefined;
      const rows = await db.all<Row>(SQL.ofProfile, [environmentId, profile.id, environmentId, profile.id]);
      return { profileId: profile.id, installations: rows.sort(oldestFirst).map(strip) };
    },
    /** The installation, locked until the transaction ends; undefined when there is none (also one erased while this waited). */
    lockInstallation(environmentId: string, id: string): Promise<RecipientInstallation | undefined> {
      return db.get<RecipientInstallation>(SQL.installation, [environmentId, id]);
    },
    /**
     * A test group's installations (given, or bound to a profile of an external id given), the
     * profiles then the installations locked, each sorted by id: each installation given (none
     * for one not there), and each external id's installations oldest first (none for an
     * unknown external id). At most MAX_TEST_GROUP_MEMBERS of each.
     */
    async lockGroupRecipients(environmentId: string, installationIds: readonly string[], externalIds: readonly string[]) {
      const profiles = externalIds.length ? await db.all<{ id: string; externalId: string }>(SQL.profilesByExternalId(externalIds.length), [environmentId, ...externalIds]) : [];
      const profileIds = profiles.map((p) => p.id);
      const rows = installationIds.length || profileIds.length ? await db.all<Row>(SQL.members(installationIds.length, profileIds.length), [environmentId, ...installationIds, ...profileIds]) : [];
      const byInstallation = new Map(rows.map((r) => [r.id, strip(r)]));
      const ofExternalId = new Map<string, RecipientInstallation[]>();
      const profileOf = new Map(profiles.map((p) => [p.id, p.externalId]));
      for (const r of [...rows].sort(oldestFirst)) {
        const ext = profileOf.get(r.profileId);
        if (ext !== undefined) ofExternalId.set(ext, [...(ofExternalId.get(ext) ?? []), strip(r)]);
      }
      return { installation: (id: string) => byInstallation.get(id), ofExternalId: (externalId: string) => ofExternalId.get(externalId) ?? [] };
    },
  };
}
