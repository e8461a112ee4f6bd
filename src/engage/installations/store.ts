import { and, eq } from 'drizzle-orm';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/store/sqlite';
import { installations } from '../../db/schema';

export type InstallationRow = typeof installations.$inferSelect;

/** What a credential resolves to on every authenticated mobile request. */
export interface InstallationPrincipal {
  id: string;
  environmentId: string;
  appId: string;
}

/** A new anonymous installation at generation 0. */
export interface NewInstallation {
  id: string;
  environmentId: string;
  appId: string;
  platform: string;
  locale: string;
  timezone: string;
  sdkVersion: string;
  appVersion: string;
  appBuild: string | null;
  deviceModel: string | null;
  osVersion: string | null;
  credentialDigest: string;
  revocationDigest: string;
  recoveryDigest: string;
  profileId: string;
  createdAt: string;
}

/** Installations, their credentials and their generation-0 anonymous profile. */
export function createInstallationStore(db: Db) {
  const raw = db.$client;
  let byCredential: Statement<[string], InstallationPrincipal> | undefined;
  let insertStatements: Record<'profile' | 'installation' | 'generation', Statement> | undefined;
  return {
    /** Hot path: one indexed lookup by credential digest; a disabled app's installations do not authenticate. */
    findPrincipalByCredential(credentialDigest: string): InstallationPrincipal | undefined {
      byCredential ??= raw.prepare(
        `SELECT i.id AS id, i.environment_id AS environmentId, i.app_id AS appId
           FROM installations i JOIN apps a ON a.id = i.app_id
          WHERE i.credential_digest = ? AND a.status = 'ACTIVE'`,
      );
      return byCredential.get(credentialDigest);
    },
    findByRevocationDigest(revocationDigest: string): InstallationRow | undefined {
      return db.select().from(installations).where(eq(installations.revocationDigest, revocationDigest)).get();
    },
    /** Recovery is scoped to the app the bootstrap came through. */
    findByRecoveryDigest(appId: string, recoveryDigest: string): InstallationRow | undefined {
      return db
        .select()
        .from(installations)
        .where(and(eq(installations.appId, appId), eq(installations.recoveryDigest, recoveryDigest)))
        .get();
    },
    find(environmentId: string, id: string): InstallationRow | undefined {
      return db
        .select()
        .from(installations)
        .where(and(eq(installations.environmentId, environmentId), eq(installations.id, id)))
        .get();
    },
    /**
     * Bootstrap hot path (spec goal: thousands per second): the anonymous profile, the
     * installation and its generation-0 fence, with statements compiled once per connection.
     */
    insertAnonymous(row: NewInstallation): void {
      insertStatements ??= {
        profile: raw.prepare('INSERT INTO profiles (id, environment_id, external_id, created_at) VALUES (?, ?, NULL, ?)'),
        installation: raw.prepare(
          `INSERT INTO installations (id, environment_id, app_id, platform, locale, timezone, sdk_version, app_version, app_build, device_model,
             os_version, credential_digest, revocation_digest, recovery_digest, generation, profile_id, binding_state, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'ANONYMOUS', ?, ?)`,
        ),
        generation: raw.prepare(
          `INSERT INTO installation_generations (installation_id, generation, profile_id, binding_state, committed_at) VALUES (?, 0, ?, 'ANONYMOUS', ?)`,
        ),
      };
      const r = row;
      insertStatements.profile.run(r.profileId, r.environmentId, r.createdAt);
      insertStatements.installation.run(r.id, r.environmentId, r.appId, r.platform, r.locale, r.timezone, r.sdkVersion, r.appVersion, r.appBuild, r.deviceModel,
        r.osVersion, r.credentialDigest, r.revocationDigest, r.recoveryDigest, r.profileId, r.createdAt, r.createdAt);
      insertStatements.generation.run(r.id, r.profileId, r.createdAt);
    },
    update(environmentId: string, id: string, patch: Partial<typeof installations.$inferInsert>): void {
      db.update(installations)
        .set(patch)
        .where(and(eq(installations.environmentId, environmentId), eq(installations.id, id)))
        .run();
    },
  };
}

export type InstallationStore = ReturnType<typeof createInstallationStore>;
