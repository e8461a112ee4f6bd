import type { Sql } from '../../platform/store/sql';

const SQL = {
  overview: `SELECT (SELECT count(*) FROM tenants) AS tenants, (SELECT count(*) FROM clients) AS clients, (SELECT count(*) FROM resources) AS resources`,
} as const;

/** Environment-wide reads of the management API (overview totals). */
export function createAdminStore(db: Sql) {
  return {
    async overview(): Promise<{ tenants: number; clients: number; resources: number }> {
      const r = (await db.get<{ tenants: number; clients: number; resources: number }>(SQL.overview))!;
      return { tenants: Number(r.tenants), clients: Number(r.clients), resources: Number(r.resources) };
    },
  };
}

export type AdminStore = ReturnType<typeof createAdminStore>;
