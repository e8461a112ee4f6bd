import { and, eq } from 'drizzle-orm';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/db';
import { installationGenerations, installations, profiles } from '../../db/schema';

export type InstallationRow = typeof installations.$inferSelect;

/** What a credential resolves to on every authenticated mobile request. */
export interface InstallationPrincipal {
  id: string;
  environmentId: string;
  appId: string;
}

/** Installations, their credentials and their generation-0 anonymous profile. */
export function createInstallationStore(db: Db) {
  const raw = db.$client;
  let byCredential: Statement<[string], InstallationPrincipal> | undefined;
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
    insert(row: typeof installations.$inferInsert, generationRow: typeof installationGenerations.$inferInsert): void {
      db.insert(installations).values(row).run();
      db.insert(installationGenerations).values(generationRow).run();
    },
    insertAnonymousProfile(environmentId: string, id: string, createdAt: string): void {
      db.insert(profiles).values({ id, environmentId, externalId: null, createdAt }).run();
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
