import { asc, count, eq } from 'drizzle-orm';
import type { Db } from '../../platform/db';
import { clients, resources, tenants } from '../../db/schema';

export type TenantRow = typeof tenants.$inferSelect;

export function createTenantStore(db: Db) {
  return {
    insert(row: typeof tenants.$inferInsert): void {
      db.insert(tenants).values(row).run();
    },
    findById(id: string): TenantRow | undefined {
      return db.select().from(tenants).where(eq(tenants.id, id)).get();
    },
    findBySlug(slug: string): TenantRow | undefined {
      return db.select().from(tenants).where(eq(tenants.slug, slug)).get();
    },
    findByManagedPath(managedPath: string): TenantRow | undefined {
      return db.select().from(tenants).where(eq(tenants.managedPath, managedPath)).get();
    },
    findByCustomHost(host: string): TenantRow | undefined {
      return db.select().from(tenants).where(eq(tenants.customHost, host)).get();
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
