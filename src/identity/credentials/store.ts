import type BetterSqlite3 from 'better-sqlite3';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { resourceCredentials, resources } from '../../db/schema';

export type CredentialRow = typeof resourceCredentials.$inferSelect;

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

export function createCredentialStore(db: Db) {
  let byId: BetterSqlite3.Statement | undefined;
  return {
    insert(row: typeof resourceCredentials.$inferInsert): void {
      db.insert(resourceCredentials).values(row).run();
    },
    /** Hot path (introspection): by primary key and tenant, joined to its resource. */
    findWithResource(tenantId: string, id: string): CredentialWithResource | undefined {
      byId ??= db.$client.prepare(
        `SELECT c.id, c.tenant_id AS tenantId, c.secret_digest AS secretDigest, c.status,
                r.uri AS resourceUri, r.audience AS resourceAudience, r.status AS resourceStatus
           FROM resource_credentials c JOIN resources r ON r.id = c.resource_id
          WHERE c.tenant_id = ? AND c.id = ?`,
      );
      return byId.get(tenantId, id) as CredentialWithResource | undefined;
    },
    list(tenantId: string): (CredentialRow & { resourceUri: string })[] {
      return db
        .select({
          id: resourceCredentials.id,
          tenantId: resourceCredentials.tenantId,
          resourceId: resourceCredentials.resourceId,
          secretDigest: resourceCredentials.secretDigest,
          status: resourceCredentials.status,
          createdAt: resourceCredentials.createdAt,
          revokedAt: resourceCredentials.revokedAt,
          resourceUri: resources.uri,
        })
        .from(resourceCredentials)
        .innerJoin(resources, eq(resources.id, resourceCredentials.resourceId))
        .where(eq(resourceCredentials.tenantId, tenantId))
        .orderBy(asc(resourceCredentials.createdAt), asc(resourceCredentials.id))
        .all();
    },
    find(tenantId: string, id: string): CredentialRow | undefined {
      return db
        .select()
        .from(resourceCredentials)
        .where(and(eq(resourceCredentials.tenantId, tenantId), eq(resourceCredentials.id, id)))
        .get();
    },
    revoke(tenantId: string, id: string, at: string): number {
      return db
        .update(resourceCredentials)
        .set({ status: 'REVOKED', revokedAt: at })
        .where(and(eq(resourceCredentials.tenantId, tenantId), eq(resourceCredentials.id, id), eq(resourceCredentials.status, 'ACTIVE')))
        .run().changes;
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
