import { and, asc, eq } from 'drizzle-orm';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../platform/store/sqlite';
import { accessKeys, apps, environments } from '../../db/schema';

export type EnvironmentRow = typeof environments.$inferSelect;
export type AppRow = typeof apps.$inferSelect;
export type AccessKeyRow = typeof accessKeys.$inferSelect;

/** Environments, their platform apps and access keys. */
export function createEnvironmentStore(db: Db) {
  let byAppKey: Statement<[string], AppRow> | undefined;
  return {
    insertEnvironment(row: EnvironmentRow): void {
      db.insert(environments).values(row).run();
    },
    findEnvironmentById(id: string): EnvironmentRow | undefined {
      return db.select().from(environments).where(eq(environments.id, id)).get();
    },
    findEnvironmentByName(name: string): EnvironmentRow | undefined {
      return db.select().from(environments).where(eq(environments.name, name)).get();
    },
    listEnvironments(): EnvironmentRow[] {
      return db.select().from(environments).orderBy(asc(environments.createdAt), asc(environments.id)).all();
    },

    insertApp(row: AppRow): void {
      db.insert(apps).values(row).run();
    },
    findApp(environmentId: string, id: string): AppRow | undefined {
      return db.select().from(apps).where(and(eq(apps.environmentId, environmentId), eq(apps.id, id))).get();
    },
    findAppByName(environmentId: string, name: string): AppRow | undefined {
      return db.select().from(apps).where(and(eq(apps.environmentId, environmentId), eq(apps.name, name))).get();
    },
    /** The app key is global (it is the only thing bootstrap presents). */
    findAppByKey(appKey: string): AppRow | undefined {
      // Bootstrap hot path: compiled once per connection.
      byAppKey ??= db.$client.prepare(
        `SELECT id, environment_id AS environmentId, platform, name, app_key AS appKey, status, created_at AS createdAt FROM apps WHERE app_key = ?`,
      );
      return byAppKey.get(appKey);
    },
    findAppAnywhere(ref: string): AppRow | undefined {
      return db.select().from(apps).where(eq(apps.id, ref)).get() ?? db.select().from(apps).where(eq(apps.appKey, ref)).get();
    },
    listApps(environmentId: string): AppRow[] {
      return db.select().from(apps).where(eq(apps.environmentId, environmentId)).orderBy(asc(apps.createdAt), asc(apps.id)).all();
    },
    setAppStatus(environmentId: string, id: string, status: AppRow['status']): void {
      db.update(apps).set({ status }).where(and(eq(apps.environmentId, environmentId), eq(apps.id, id))).run();
    },

    insertAccessKey(row: typeof accessKeys.$inferInsert): void {
      db.insert(accessKeys).values(row).run();
    },
    findAccessKey(id: string): AccessKeyRow | undefined {
      return db.select().from(accessKeys).where(eq(accessKeys.id, id)).get();
    },
    findAccessKeyByDigest(keyDigest: string): AccessKeyRow | undefined {
      return db.select().from(accessKeys).where(eq(accessKeys.keyDigest, keyDigest)).get();
    },
    listAccessKeys(environmentId: string): AccessKeyRow[] {
      return db
        .select()
        .from(accessKeys)
        .where(eq(accessKeys.environmentId, environmentId))
        .orderBy(asc(accessKeys.createdAt), asc(accessKeys.id))
        .all();
    },
    updateAccessKey(environmentId: string, id: string, patch: Partial<typeof accessKeys.$inferInsert>): void {
      db.update(accessKeys).set(patch).where(and(eq(accessKeys.environmentId, environmentId), eq(accessKeys.id, id))).run();
    },
  };
}

export type EnvironmentStore = ReturnType<typeof createEnvironmentStore>;
