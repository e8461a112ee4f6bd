import { and, eq } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { bindingCodes, bindingTransitions, installationGenerations, installations, profiles } from '../../db/schema';

export type BindingCodeRow = typeof bindingCodes.$inferSelect;
export type BindingTransitionRow = typeof bindingTransitions.$inferSelect;

/** Binding codes, committed transitions and the generation fence they advance. */
export function createBindingStore(db: Db) {
  return {
    findPendingCode(environmentId: string, installationId: string): BindingCodeRow | undefined {
      return db
        .select()
        .from(bindingCodes)
        .where(and(eq(bindingCodes.environmentId, environmentId), eq(bindingCodes.installationId, installationId), eq(bindingCodes.status, 'PENDING')))
        .get();
    },
    findCode(environmentId: string, codeDigest: string): BindingCodeRow | undefined {
      return db
        .select()
        .from(bindingCodes)
        .where(and(eq(bindingCodes.environmentId, environmentId), eq(bindingCodes.codeDigest, codeDigest)))
        .get();
    },
    insertCode(row: BindingCodeRow): void {
      db.insert(bindingCodes).values(row).run();
    },
    setCodeStatus(environmentId: string, codeDigest: string, status: BindingCodeRow['status']): void {
      db.update(bindingCodes)
        .set({ status })
        .where(and(eq(bindingCodes.environmentId, environmentId), eq(bindingCodes.codeDigest, codeDigest)))
        .run();
    },
    findTransition(environmentId: string, idempotencyKey: string): BindingTransitionRow | undefined {
      return db
        .select()
        .from(bindingTransitions)
        .where(and(eq(bindingTransitions.environmentId, environmentId), eq(bindingTransitions.idempotencyKey, idempotencyKey)))
        .get();
    },
    insertTransition(row: BindingTransitionRow): void {
      db.insert(bindingTransitions).values(row).run();
    },
    installation(environmentId: string, id: string) {
      return db
        .select({ id: installations.id, appId: installations.appId, generation: installations.generation })
        .from(installations)
        .where(and(eq(installations.environmentId, environmentId), eq(installations.id, id)))
        .get();
    },
    findProfileByExternalId(environmentId: string, externalId: string): string | undefined {
      return db
        .select({ id: profiles.id })
        .from(profiles)
        .where(and(eq(profiles.environmentId, environmentId), eq(profiles.externalId, externalId)))
        .get()?.id;
    },
    insertProfile(environmentId: string, id: string, externalId: string | null, createdAt: string): void {
      db.insert(profiles).values({ id, environmentId, externalId, createdAt }).run();
    },
    /** Moves the installation to `generation`, bound to `profileId`, and records the fence. */
    commitGeneration(
      environmentId: string,
      installationId: string,
      generation: number,
      profileId: string,
      bindingState: 'BOUND' | 'ANONYMOUS',
      at: string,
    ): void {
      db.update(installations)
        .set({ generation, profileId, bindingState, updatedAt: at })
        .where(and(eq(installations.environmentId, environmentId), eq(installations.id, installationId)))
        .run();
      db.insert(installationGenerations).values({ installationId, generation, profileId, bindingState, committedAt: at }).run();
    },
  };
}

export type BindingStore = ReturnType<typeof createBindingStore>;
