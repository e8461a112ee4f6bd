import type { resources } from '../../db/schema';
import { updateStatement, type Sql } from '../../platform/store/sql';

/** configuration_managed (migration 0012) is read by `isManaged` and set by `markManaged` (`engage apply`). */
export type ResourceRow = Omit<typeof resources.$inferSelect, 'configurationManaged'>;
export type NewResourceRow = Omit<ResourceRow, 'status'> & Partial<Pick<ResourceRow, 'status'>>;

const COLUMNS = `id, tenant_id AS "tenantId", uri, audience, scopes, status, created_at AS "createdAt"`;

const SQL = {
  insert: `INSERT INTO resources (id, tenant_id, uri, audience, scopes, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  byUri: `SELECT ${COLUMNS} FROM resources WHERE tenant_id = ? AND uri = ?`,
  byAudience: `SELECT ${COLUMNS} FROM resources WHERE tenant_id = ? AND audience = ?`,
  byId: `SELECT ${COLUMNS} FROM resources WHERE tenant_id = ? AND id = ?`,
  list: `SELECT ${COLUMNS} FROM resources WHERE tenant_id = ? ORDER BY created_at, uri`,
  listPage: `SELECT ${COLUMNS} FROM resources WHERE tenant_id = ? ORDER BY created_at, uri LIMIT ? OFFSET ?`,
  managed: `SELECT configuration_managed AS "managed" FROM resources WHERE tenant_id = ? AND id = ?`,
  markManaged: `UPDATE resources SET configuration_managed = 1 WHERE tenant_id = ? AND id = ? AND configuration_managed = 0`,
} as const;

/**
 * What `update` may change, with its column. The URI is the resource's name in the management
 * API and stays there; `engage apply` names a managed resource by its audience and may move it.
 */
const CHANGE_COLUMNS = { uri: 'uri', audience: 'audience', scopes: 'scopes', status: 'status' } as const;
const update = updateStatement('resources', CHANGE_COLUMNS, 'tenant_id = ? AND id = ?');
export type ResourceChange = Partial<Pick<ResourceRow, keyof typeof CHANGE_COLUMNS>>;

export function createResourceStore(db: Sql) {
  return {
    async insert(r: NewResourceRow): Promise<void> {
      await db.run(SQL.insert, [r.id, r.tenantId, r.uri, r.audience, r.scopes, r.status ?? 'ACTIVE', r.createdAt]);
    },
    findByUri(tenantId: string, uri: string): Promise<ResourceRow | undefined> {
      return db.get<ResourceRow>(SQL.byUri, [tenantId, uri]);
    },
    findByAudience(tenantId: string, audience: string): Promise<ResourceRow | undefined> {
      return db.get<ResourceRow>(SQL.byAudience, [tenantId, audience]);
    },
    findById(tenantId: string, id: string): Promise<ResourceRow | undefined> {
      return db.get<ResourceRow>(SQL.byId, [tenantId, id]);
    },
    list(tenantId: string): Promise<ResourceRow[]> {
      return db.all<ResourceRow>(SQL.list, [tenantId]);
    },
    listPage(tenantId: string, offset: number, limit: number): Promise<ResourceRow[]> {
      return db.all<ResourceRow>(SQL.listPage, [tenantId, limit, offset]);
    },
    /** Whether bootstrap configuration (`engage apply`, migration 0012) owns the resource. */
    async isManaged(tenantId: string, id: string): Promise<boolean> {
      return (await db.get<{ managed: number }>(SQL.managed, [tenantId, id]))?.managed === 1;
    },
    /** Marks it configuration-managed; false if it was already. */
    async markManaged(tenantId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.markManaged, [tenantId, id])) === 1;
    },
    async update(tenantId: string, id: string, change: ResourceChange): Promise<void> {
      const u = update(change);
      if (u) await db.run(u.text, [...u.values, tenantId, id]);
    },
  };
}

export type ResourceStore = ReturnType<typeof createResourceStore>;
