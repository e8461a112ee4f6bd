import type { tenants } from '../../db/schema';
import { updateStatement, type Sql } from '../../platform/store/sql';

export type TenantRow = typeof tenants.$inferSelect;
export type NewTenantRow = typeof tenants.$inferInsert;

const COLUMNS = `id, slug, managed_path AS "managedPath", custom_issuer AS "customIssuer", custom_host AS "customHost", status,
  registration_mode AS "registrationMode", is_control AS "isControl", configuration_managed AS "configurationManaged",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

type Raw = Omit<TenantRow, 'isControl' | 'configurationManaged'> & { isControl: number; configurationManaged: number };

const fromRaw = (r: Raw): TenantRow => ({ ...r, isControl: r.isControl === 1, configurationManaged: r.configurationManaged === 1 });

const SQL = {
  insert: `INSERT INTO tenants (id, slug, managed_path, custom_issuer, custom_host, status, registration_mode, is_control,
      configuration_managed, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // Issuer routing runs on every request (behind the catalogue cache): constant texts, prepared once.
  byId: `SELECT ${COLUMNS} FROM tenants WHERE id = ?`,
  bySlug: `SELECT ${COLUMNS} FROM tenants WHERE slug = ?`,
  byManagedPath: `SELECT ${COLUMNS} FROM tenants WHERE managed_path = ?`,
  byCustomHost: `SELECT ${COLUMNS} FROM tenants WHERE custom_host = ?`,
  control: `SELECT ${COLUMNS} FROM tenants WHERE is_control = 1`,
  list: `SELECT ${COLUMNS} FROM tenants ORDER BY created_at, id LIMIT ? OFFSET ?`,
  listWithCounts: `SELECT ${COLUMNS}, (SELECT count(*) FROM clients c WHERE c.tenant_id = tenants.id) AS "clientCount",
      (SELECT count(*) FROM resources r WHERE r.tenant_id = tenants.id) AS "resourceCount"
    FROM tenants ORDER BY created_at, id LIMIT ? OFFSET ?`,
  total: `SELECT count(*) AS n FROM tenants`,
  countClients: `SELECT count(*) AS n FROM clients WHERE tenant_id = ?`,
  countResources: `SELECT count(*) AS n FROM resources WHERE tenant_id = ?`,
} as const;

/** What `update` may change, with its column. */
const CHANGE_COLUMNS = {
  slug: 'slug',
  customIssuer: 'custom_issuer',
  customHost: 'custom_host',
  status: 'status',
  registrationMode: 'registration_mode',
  configurationManaged: 'configuration_managed',
  updatedAt: 'updated_at',
} as const;
const update = updateStatement('tenants', CHANGE_COLUMNS, 'id = ?');

export type TenantChange = Partial<Pick<TenantRow, keyof typeof CHANGE_COLUMNS>>;

const bool = (b: boolean | undefined) => (b ? 1 : 0);

export function createTenantStore(db: Sql) {
  const one = async (text: string, v: string): Promise<TenantRow | undefined> => {
    const r = await db.get<Raw>(text, [v]);
    return r && fromRaw(r);
  };
  const count = async (text: string, params: unknown[] = []): Promise<number> => Number((await db.get<{ n: number }>(text, params))!.n);
  return {
    async insert(r: NewTenantRow): Promise<void> {
      await db.run(SQL.insert, [
        r.id, r.slug, r.managedPath, r.customIssuer ?? null, r.customHost ?? null, r.status ?? 'ACTIVE', r.registrationMode ?? 'CONTROLLED',
        bool(r.isControl), bool(r.configurationManaged), r.createdAt, r.updatedAt,
      ]);
    },
    findById(id: string): Promise<TenantRow | undefined> {
      return one(SQL.byId, id);
    },
    findBySlug(slug: string): Promise<TenantRow | undefined> {
      return one(SQL.bySlug, slug);
    },
    findByManagedPath(managedPath: string): Promise<TenantRow | undefined> {
      return one(SQL.byManagedPath, managedPath);
    },
    findByCustomHost(host: string): Promise<TenantRow | undefined> {
      return one(SQL.byCustomHost, host);
    },
    async findControl(): Promise<TenantRow | undefined> {
      const r = await db.get<Raw>(SQL.control);
      return r && fromRaw(r);
    },
    async list(offset: number, limit: number): Promise<TenantRow[]> {
      return (await db.all<Raw>(SQL.list, [limit, offset])).map(fromRaw);
    },
    /** A page of tenants with their client and resource counts (the management API's list). */
    async listWithCounts(offset: number, limit: number): Promise<{ tenant: TenantRow; clientCount: number; resourceCount: number }[]> {
      const rows = await db.all<Raw & { clientCount: number; resourceCount: number }>(SQL.listWithCounts, [limit, offset]);
      return rows.map(({ clientCount, resourceCount, ...r }) => ({ tenant: fromRaw(r), clientCount: Number(clientCount), resourceCount: Number(resourceCount) }));
    },
    total(): Promise<number> {
      return count(SQL.total);
    },
    async update(id: string, change: TenantChange): Promise<void> {
      const u = update(change);
      if (u) await db.run(u.text, [...u.values, id]);
    },
    countClients(tenantId: string): Promise<number> {
      return count(SQL.countClients, [tenantId]);
    },
    countResources(tenantId: string): Promise<number> {
      return count(SQL.countResources, [tenantId]);
    },
  };
}

export type TenantStore = ReturnType<typeof createTenantStore>;
