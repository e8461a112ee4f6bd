import type { Sql } from '../../platform/store/sql';
import type { InstallationPrincipal } from '../installations/service';

/**
 * The sync's one read of its own (issue 26): everything a sync decides its path from, in one
 * statement (a consistent snapshot on either engine): the installation's generation, sync
 * revision and context columns, the current profile's external id and sync revision, and the
 * environment's definitions revision, tombstone horizon and refresh interval. Written by their
 * owners (profile state, engage/definitions); read here so that an unchanged installation costs
 * one primary-key lookup.
 */
export interface SyncHead {
  generation: number;
  installationRevision: number;
  profileId: string;
  bound: boolean;
  appId: string;
  platform: string;
  locale: string;
  timezone: string;
  appVersion: string;
  osVersion: string | null;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushTokenHeld: boolean;
  externalId: string | null;
  profileRevision: number;
  definitionsRevision: number;
  horizon: number;
  refreshAfterSeconds: number | null;
  /** In-app messages (issue 27): the environment's minimum interval and the revision of its last change. */
  inAppMinIntervalSeconds: number;
  inAppSettingsRevision: number;
}

/**
 * The parameters of a multi-table statement, as a one-row table. SQLite as built here (STAT4)
 * prepares a statement whose plan joins tables (or flattens a subquery) again each time a
 * parameter compared with an indexed column is bound to a new value: a full compile of the SQL,
 * and better-sqlite3 then compiles a new row constructor (`new Function`): 30–50 µs per call,
 * more than the lookups themselves. Parameters read from a materialized CTE are not in the
 * plan, so the statement is compiled once. PostgreSQL plans it the same (an InitPlan each).
 */
const params = (...names: string[]) => `WITH k(${names.join(', ')}) AS MATERIALIZED (SELECT ${names.map(() => 'CAST(? AS TEXT)').join(', ')})\n`;

const HEAD = `${params('env_id', 'inst_id')}SELECT i.generation, i.sync_revision AS "installationRevision", i.profile_id AS "profileId", i.binding_state AS "bindingState",
    i.app_id AS "appId", i.platform, i.locale, i.timezone, i.app_version AS "appVersion", i.os_version AS "osVersion",
    i.privacy, i.push_subscription AS "pushSubscription", i.push_permission AS "pushPermission",
    CASE WHEN i.push_token IS NULL THEN 0 ELSE 1 END AS "pushTokenHeld",
    p.external_id AS "externalId", COALESCE(p.sync_revision, 0) AS "profileRevision",
    COALESCE(s.revision, 0) AS "definitionsRevision", COALESCE(s.horizon, 0) AS horizon, s.refresh_after_seconds AS "refreshAfterSeconds",
    COALESCE(s.in_app_min_interval_seconds, 30) AS "inAppMinIntervalSeconds", COALESCE(s.in_app_settings_revision, 0) AS "inAppSettingsRevision"
  FROM installations i
  LEFT JOIN profiles p ON p.id = i.profile_id
  LEFT JOIN sync_environments s ON s.environment_id = i.environment_id
  WHERE i.environment_id = (SELECT env_id FROM k) AND i.id = (SELECT inst_id FROM k)`;

type RawHead = Omit<SyncHead, 'bound' | 'pushTokenHeld'> & { bindingState: string; pushTokenHeld: number };

/** What decides whether a cursor is unchanged (and answers it): the head's revisions and what the answer needs besides. */
export type SyncRevisions = Pick<SyncHead, 'generation' | 'installationRevision' | 'profileRevision' | 'definitionsRevision' | 'horizon' | 'refreshAfterSeconds' | 'appId'>;

/** The head's revision columns only: the unchanged answer's one statement (a row of 7 values to build, not 21). */
const REVISIONS = `${params('env_id', 'inst_id')}SELECT i.generation, i.sync_revision AS "installationRevision", i.app_id AS "appId",
    COALESCE(p.sync_revision, 0) AS "profileRevision", COALESCE(s.revision, 0) AS "definitionsRevision", COALESCE(s.horizon, 0) AS horizon,
    s.refresh_after_seconds AS "refreshAfterSeconds"
  FROM installations i
  LEFT JOIN profiles p ON p.id = i.profile_id
  LEFT JOIN sync_environments s ON s.environment_id = i.environment_id
  WHERE i.environment_id = (SELECT env_id FROM k) AND i.id = (SELECT inst_id FROM k)`;

/**
 * The credential check of POST /v1/sdk/sync (the installation guard's, installations/store.ts
 * `principal`) and the head's revisions in one statement: an unchanged sync is then this one
 * statement. One table with scalar subqueries, so SQLite compiles it once (a join is compiled
 * again whenever the digest changes); on PostgreSQL one round trip instead of two.
 */
const PRINCIPAL_REVISIONS = `SELECT i.id AS id, i.environment_id AS "environmentId", i.app_id AS "appId",
    i.generation, i.sync_revision AS "installationRevision",
    COALESCE((SELECT p.sync_revision FROM profiles p WHERE p.id = i.profile_id), 0) AS "profileRevision",
    COALESCE((SELECT s.revision FROM sync_environments s WHERE s.environment_id = i.environment_id), 0) AS "definitionsRevision",
    COALESCE((SELECT s.horizon FROM sync_environments s WHERE s.environment_id = i.environment_id), 0) AS horizon,
    (SELECT s.refresh_after_seconds FROM sync_environments s WHERE s.environment_id = i.environment_id) AS "refreshAfterSeconds"
  FROM installations i
  WHERE i.credential_digest = ? AND (SELECT a.status FROM apps a WHERE a.id = i.app_id) = 'ACTIVE'`;

/** Rows of each kind read for one installation or profile (the first, in key order; profiles/store.ts SYNC_READ_LIMIT). */
const LIMIT = 1_000;

/**
 * The installation's and its profile's state the documents derive from, in one statement (one
 * snapshot, one round trip on PostgreSQL instead of five to seven): one branch per kind, each
 * its own rows in key order, told apart by `k`. The same rows as profiles/store.ts `syncSources`
 * (what `documentSourcesIn` reads: attributes with a value, explicit list choices, present tags,
 * profile choices), flags/read-store.ts `sticky` and in-app/read-store.ts `impressions`, read
 * here as the head is: the sync's hot path, written by their owners. Booleans and counts are
 * integers in `n` on both engines; the sticky and impression branches only when asked for.
 */
const STATE_BRANCHES = [
  `SELECT 'a' AS k, key AS a, value AS b, NULL AS c, NULL AS n FROM (SELECT key, value FROM installation_attributes WHERE installation_id = (SELECT inst_id FROM k) AND value IS NOT NULL ORDER BY key LIMIT ${LIMIT}) ia`,
  `SELECT 's', list, NULL, NULL, subscribed FROM (SELECT list, subscribed FROM installation_subscriptions WHERE installation_id = (SELECT inst_id FROM k) ORDER BY list LIMIT ${LIMIT}) isub`,
  `SELECT 'p', key, value, NULL, NULL FROM (SELECT key, value FROM profile_attributes WHERE profile_id = (SELECT prof_id FROM k) AND value IS NOT NULL ORDER BY key LIMIT ${LIMIT}) pa`,
  `SELECT 't', tag, NULL, NULL, NULL FROM (SELECT tag FROM profile_tags WHERE profile_id = (SELECT prof_id FROM k) AND present = 1 ORDER BY tag LIMIT ${LIMIT}) pt`,
  `SELECT 'q', list, channel, NULL, subscribed FROM (SELECT list, channel, subscribed FROM profile_subscriptions WHERE profile_id = (SELECT prof_id FROM k) ORDER BY list, channel LIMIT ${LIMIT}) ps`,
];
const STICKY_BRANCH = `SELECT 'f', flag_key, experiment_id, variant_key, NULL FROM flag_sticky_assignments WHERE installation_id = (SELECT inst_id FROM k)`;
const IMPRESSIONS_BRANCH = `SELECT 'i', message_id, NULL, CAST(window_start_ms AS TEXT), count FROM in_app_impressions WHERE installation_id = (SELECT inst_id FROM k)`;
/** The statement for each combination of the optional branches (bit 1: sticky, bit 2: impressions). */
const STATE = [0, 1, 2, 3].map((opt) => params('inst_id', 'prof_id') + [...STATE_BRANCHES, ...(opt & 1 ? [STICKY_BRANCH] : []), ...(opt & 2 ? [IMPRESSIONS_BRANCH] : [])].join('\nUNION ALL\n'));

/** What `state` reads, parsed as the documents read it. */
export interface SyncState {
  attributes: Record<string, unknown>;
  /** List key → subscribed (the installation's explicit choices). */
  subscriptions: Record<string, boolean>;
  profile: { attributes: Record<string, unknown>; tags: string[]; subscriptions: { list: string; channel: string; subscribed: boolean }[] };
  sticky: { flagKey: string; experimentId: string; variantKey: string }[];
  impressions: { messageId: string; windowStartMs: number; count: number }[];
}

type StateRow = { k: string; a: string; b: string | null; c: string | null; n: number | string | null };

export function createSyncStore(db: Sql) {
  return {
    async head(environmentId: string, installationId: string): Promise<SyncHead | undefined> {
      const r = await db.get<RawHead>(HEAD, [environmentId, installationId]);
      if (!r) return undefined;
      const { bindingState, ...rest } = r;
      return {
        ...rest,
        ...revisionsOf(r),
        inAppMinIntervalSeconds: Number(r.inAppMinIntervalSeconds),
        inAppSettingsRevision: Number(r.inAppSettingsRevision),
        bound: bindingState === 'BOUND',
        pushTokenHeld: Number(r.pushTokenHeld) === 1,
      };
    },

    /** The head's revisions alone (the same snapshot a head would read). */
    async revisions(environmentId: string, installationId: string): Promise<SyncRevisions | undefined> {
      const r = await db.get<SyncRevisions>(REVISIONS, [environmentId, installationId]);
      return r && revisionsOf(r);
    },

    /** The installation a credential digest names (its app active) with its head's revisions, in one snapshot. */
    async principal(credentialDigest: string): Promise<(InstallationPrincipal & { revisions: SyncRevisions }) | undefined> {
      const r = await db.get<SyncRevisions & InstallationPrincipal>(PRINCIPAL_REVISIONS, [credentialDigest]);
      return r && { id: r.id, environmentId: r.environmentId, appId: r.appId, revisions: revisionsOf(r) };
    },

    /** The installation's and its profile's state, its sticky assignments and impression windows when asked for, in one snapshot. */
    async state(installationId: string, profileId: string, opts: { sticky: boolean; impressions: boolean }): Promise<SyncState> {
      const opt = (opts.sticky ? 1 : 0) | (opts.impressions ? 2 : 0);
      const rows = await db.all<StateRow>(STATE[opt], [installationId, profileId]);
      // Entries made into objects as profiles/service.ts `parsed` does (a key such as __proto__ is an own property).
      const attributes: [string, unknown][] = [];
      const subscriptions: [string, boolean][] = [];
      const profileAttributes: [string, unknown][] = [];
      const out: SyncState = { attributes: {}, subscriptions: {}, profile: { attributes: {}, tags: [], subscriptions: [] }, sticky: [], impressions: [] };
      for (const r of rows) {
        switch (r.k) {
          case 'a':
            attributes.push([r.a, JSON.parse(r.b!)]);
            break;
          case 's':
            subscriptions.push([r.a, Number(r.n) !== 0]);
            break;
          case 'p':
            profileAttributes.push([r.a, JSON.parse(r.b!)]);
            break;
          case 't':
            out.profile.tags.push(r.a);
            break;
          case 'q':
            out.profile.subscriptions.push({ list: r.a, channel: r.b!, subscribed: Number(r.n) !== 0 });
            break;
          case 'f':
            out.sticky.push({ flagKey: r.a, experimentId: r.b!, variantKey: r.c! });
            break;
          case 'i':
            out.impressions.push({ messageId: r.a, windowStartMs: Number(r.c), count: Number(r.n) });
            break;
        }
      }
      out.attributes = Object.fromEntries(attributes);
      out.subscriptions = Object.fromEntries(subscriptions);
      out.profile.attributes = Object.fromEntries(profileAttributes);
      return out;
    },
  };
}

const revisionsOf = (r: SyncRevisions): SyncRevisions => ({
  generation: Number(r.generation),
  installationRevision: Number(r.installationRevision),
  profileRevision: Number(r.profileRevision),
  definitionsRevision: Number(r.definitionsRevision),
  horizon: Number(r.horizon),
  refreshAfterSeconds: r.refreshAfterSeconds === null ? null : Number(r.refreshAfterSeconds),
  appId: r.appId,
});

export type SyncStore = ReturnType<typeof createSyncStore>;
