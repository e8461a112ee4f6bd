import type { resourceCredentials } from '../../db/schema';
import type { Sql } from '../../platform/store/sql';

/** configuration_managed (migration 0012) is set by `markManaged` (`engage apply`); `find` reads it (revocation refuses a managed credential). */
export type CredentialRow = Omit<typeof resourceCredentials.$inferSelect, 'configurationManaged'>;
export type NewCredentialRow = Omit<CredentialRow, 'status' | 'revokedAt'> & Partial<Pick<CredentialRow, 'status' | 'revokedAt'>>;

/** A credential with what introspection needs of its resource, in one lookup. */
export interface CredentialWithResource {
  id: string;
  tenantId: string;
  secretDigest: string;
  status: CredentialRow['status'];
  resourceUri: string;
  resourceAudience: string;
  resourceStatus: 'ACTIVE' | 'DISABLED';
}

const COLUMNS = `c.id, c.tenant_id AS "tenantId", c.resource_id AS "resourceId", c.secret_digest AS "secretDigest", c.status,
  c.created_at AS "createdAt", c.revoked_at AS "revokedAt"`;

const SQL = {
  insert: `INSERT INTO resource_credentials (id, tenant_id, resource_id, secret_digest, status, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  withResource: `SELECT c.id, c.tenant_id AS "tenantId", c.secret_digest AS "secretDigest", c.status,
      r.uri AS "resourceUri", r.audience AS "resourceAudience", r.status AS "resourceStatus"
    FROM resource_credentials c JOIN resources r ON r.id = c.resource_id
    WHERE c.tenant_id = ? AND c.id = ?`,
  list: `SELECT ${COLUMNS}, r.uri AS "resourceUri" FROM resource_credentials c JOIN resources r ON r.id = c.resource_id
    WHERE c.tenant_id = ? ORDER BY c.created_at, c.id`,
  listPage: `SELECT ${COLUMNS}, r.uri AS "resourceUri" FROM resource_credentials c JOIN resources r ON r.id = c.resource_id
    WHERE c.tenant_id = ? ORDER BY c.created_at, c.id LIMIT ? OFFSET ?`,
  find: `SELECT ${COLUMNS}, c.configuration_managed AS "configurationManaged" FROM resource_credentials c WHERE c.tenant_id = ? AND c.id = ?`,
  // Never a configuration-managed credential: `engage apply` owns it (the service says why).
  revoke: `UPDATE resource_credentials SET status = 'REVOKED', revoked_at = ? WHERE tenant_id = ? AND id = ? AND status = 'ACTIVE' AND configuration_managed = 0`,
  managedOf: `SELECT id, secret_digest AS "secretDigest" FROM resource_credentials
    WHERE tenant_id = ? AND resource_id = ? AND configuration_managed = 1 AND status = 'ACTIVE' ORDER BY created_at LIMIT 1`,
  markManaged: `UPDATE resource_credentials SET configuration_managed = 1 WHERE tenant_id = ? AND id = ? AND configuration_managed = 0`,
  secretDigest: `UPDATE resource_credentials SET secret_digest = ? WHERE tenant_id = ? AND id = ?`,
} as const;

export function createCredentialStore(db: Sql) {
  return {
    async insert(r: NewCredentialRow): Promise<void> {
      await db.run(SQL.insert, [r.id, r.tenantId, r.resourceId, r.secretDigest, r.status ?? 'ACTIVE', r.createdAt, r.revokedAt ?? null]);
    },
    /** Hot path (introspection): by primary key and tenant, joined to its resource. */
    findWithResource(tenantId: string, id: string): Promise<CredentialWithResource | undefined> {
      return db.get<CredentialWithResource>(SQL.withResource, [tenantId, id]);
    },
    list(tenantId: string): Promise<(CredentialRow & { resourceUri: string })[]> {
      return db.all<CredentialRow & { resourceUri: string }>(SQL.list, [tenantId]);
    },
    listPage(tenantId: string, offset: number, limit: number): Promise<(CredentialRow & { resourceUri: string })[]> {
      return db.all<CredentialRow & { resourceUri: string }>(SQL.listPage, [tenantId, limit, offset]);
    },
    async find(tenantId: string, id: string): Promise<(CredentialRow & { configurationManaged: boolean }) | undefined> {
      const r = await db.get<CredentialRow & { configurationManaged: number }>(SQL.find, [tenantId, id]);
      return r && { ...r, configurationManaged: r.configurationManaged === 1 };
    },
    /** ACTIVE to REVOKED; 0 when it was not ACTIVE (conditional, so safe under races). */
    revoke(tenantId: string, id: string, at: string): Promise<number> {
      return db.run(SQL.revoke, [at, tenantId, id]);
    },
    /** The ACTIVE credential `engage apply` keeps for a resource (one per resource), if any. */
    managedOf(tenantId: string, resourceId: string): Promise<{ id: string; secretDigest: string } | undefined> {
      return db.get<{ id: string; secretDigest: string }>(SQL.managedOf, [tenantId, resourceId]);
    },
    /** Marks it configuration-managed; false if it was already. */
    async markManaged(tenantId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.markManaged, [tenantId, id])) === 1;
    },
    /** A secret given by the operator (its digest, as issued secrets are stored). */
    async setSecretDigest(tenantId: string, id: string, secretDigest: string): Promise<void> {
      await db.run(SQL.secretDigest, [secretDigest, tenantId, id]);
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
