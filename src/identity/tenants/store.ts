import { asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { clients, resources, tenants } from '../../db/schema';

export type TenantRow = typeof tenants.$inferSelect;

export function createTenantStore(db: Db) {
  // Issuer routing runs on every request: prepared once, bound per call.
  const byId = db.select().from(tenants).where(eq(tenants.id, sql.placeholder('v'))).prepare();
  const byManagedPath = db.select().from(tenants).where(eq(tenants.managedPath, sql.placeholder('v'))).prepare();
  const byCustomHost = db.select().from(tenants).where(eq(tenants.customHost, sql.placeholder('v'))).prepare();
  return {
    insert(row: typeof tenants.$inferInsert): void {
      db.insert(tenants).values(row).run();
    },
    findById(id: string): TenantRow | undefined {
      return byId.get({ v: id });
    },
    findBySlug(slug: string): TenantRow | undefined {
      return db.select().from(tenants).where(eq(tenants.slug, slug)).get();
    },
    findByManagedPath(managedPath: string): TenantRow | undefined {
      return byManagedPath.get({ v: managedPath });
    },
    findByCustomHost(host: string): TenantRow | undefined {
      return byCustomHost.get({ v: host });
    },
    findControl(): TenantRow | undefined {
      return db.select().from(tenants).where(eq(tenants.isControl, true)).get();
    },
    list(offset: number, limit: number): TenantRow[] {
      return db.select().from(tenants).orderBy(asc(tenants.createdAt), asc(tenants.id)).limit(limit).offset(offset).all();
    },
    total(): number {
      return db.select({ n: count() }).from(tenants).get()!.n;
    },
    update(id: string, patch: Partial<typeof tenants.$inferInsert>): void {
      db.update(tenants).set(patch).where(eq(tenants.id, id)).run();
    },
    countClients(tenantId: string): number {
      return db.select({ n: count() }).from(clients).where(eq(clients.tenantId, tenantId)).get()!.n;
    },
    countResources(tenantId: string): number {
      return db.select({ n: count() }).from(resources).where(eq(resources.tenantId, tenantId)).get()!.n;
    },
  };
}

export type TenantStore = ReturnType<typeof createTenantStore>;
