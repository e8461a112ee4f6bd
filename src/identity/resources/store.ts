import type BetterSqlite3 from 'better-sqlite3';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { resources } from '../../db/schema';

export type ResourceRow = typeof resources.$inferSelect;

export function createResourceStore(db: Db) {
  let byUri: BetterSqlite3.Statement | undefined;
  return {
    insert(row: typeof resources.$inferInsert): void {
      db.insert(resources).values(row).run();
    },
    findByUri(tenantId: string, uri: string): ResourceRow | undefined {
      byUri ??= db.$client.prepare(
        'SELECT id, tenant_id AS tenantId, uri, audience, scopes, status, created_at AS createdAt FROM resources WHERE tenant_id = ? AND uri = ?',
      );
      return byUri.get(tenantId, uri) as ResourceRow | undefined;
    },
    findByAudience(tenantId: string, audience: string): ResourceRow | undefined {
      return db.select().from(resources).where(and(eq(resources.tenantId, tenantId), eq(resources.audience, audience))).get();
    },
    findById(tenantId: string, id: string): ResourceRow | undefined {
      return db.select().from(resources).where(and(eq(resources.tenantId, tenantId), eq(resources.id, id))).get();
    },
    list(tenantId: string): ResourceRow[] {
      return db.select().from(resources).where(eq(resources.tenantId, tenantId)).orderBy(asc(resources.createdAt), asc(resources.uri)).all();
    },
  };
}

export type ResourceStore = ReturnType<typeof createResourceStore>;
