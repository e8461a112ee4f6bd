import type { identityProviders, userIdentities } from '../../db/schema';
import { insertMany, type Sql } from '../../platform/store/sql';

export type ProviderRow = typeof identityProviders.$inferSelect;
export type IdentityRow = typeof userIdentities.$inferSelect;

const PROVIDER_COLUMNS = `id, tenant_id AS "tenantId", name, issuer, audiences, created_at AS "createdAt"`;
const IDENTITY_COLUMNS = `tenant_id AS "tenantId", issuer, subject, user_id AS "userId", provider, created_at AS "createdAt"`;

const SQL = {
  insert: `INSERT INTO identity_providers (id, tenant_id, name, issuer, audiences, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  list: `SELECT ${PROVIDER_COLUMNS} FROM identity_providers WHERE tenant_id = ? ORDER BY name`,
  byName: `SELECT ${PROVIDER_COLUMNS} FROM identity_providers WHERE tenant_id = ? AND name = ?`,
  remove: `DELETE FROM identity_providers WHERE tenant_id = ? AND name = ?`,
  identity: `SELECT ${IDENTITY_COLUMNS} FROM user_identities WHERE tenant_id = ? AND issuer = ? AND subject = ?`,
  link: `INSERT INTO user_identities (tenant_id, issuer, subject, user_id, provider, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  countLinks: `SELECT COUNT(*) AS "n" FROM user_identities WHERE tenant_id = ? AND user_id = ?`,
  // A row past its expiry that the sweep has not removed yet does not count: it is taken over.
  recordTokenUse: `INSERT INTO upstream_token_uses (digest, expires_at) VALUES (?, ?)
    ON CONFLICT (digest) DO UPDATE SET expires_at = excluded.expires_at WHERE upstream_token_uses.expires_at <= ?`,
  purgeTokenUses: `DELETE FROM upstream_token_uses WHERE expires_at <= ?`,
} as const;

/** Identity providers of a tenant, the upstream identities linked to its users, and the upstream tokens already used. */
export function createProviderStore(db: Sql) {
  return {
    /** Links of imported users to upstream identities; set-oriented. */
    async insertIdentities(tenantId: string, rows: readonly { userId: string; issuer: string; subject: string; provider: string }[], now: string): Promise<void> {
      await insertMany(db, rows, 6, 'INSERT INTO user_identities (tenant_id, issuer, subject, user_id, provider, created_at)',
        (r) => [tenantId, r.issuer, r.subject, r.userId, r.provider, now]);
    },
    /** Upstream identities (issuer, subject) already linked in the tenant, as `issuer subject` keys. */
    async linkedIdentities(tenantId: string, pairs: readonly { issuer: string; subject: string }[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const p of pairs) {
        const r = await db.get<{ n: number }>('SELECT 1 AS "n" FROM user_identities WHERE tenant_id = ? AND issuer = ? AND subject = ?', [tenantId, p.issuer, p.subject]);
        if (r) out.add(`${p.issuer} ${p.subject}`);
      }
      return out;
    },
    async insert(r: ProviderRow): Promise<void> {
      await db.run(SQL.insert, [r.id, r.tenantId, r.name, r.issuer, r.audiences, r.createdAt]);
    },
    list(tenantId: string): Promise<ProviderRow[]> {
      return db.all<ProviderRow>(SQL.list, [tenantId]);
    },
    findByName(tenantId: string, name: string): Promise<ProviderRow | undefined> {
      return db.get<ProviderRow>(SQL.byName, [tenantId, name]);
    },
    async remove(tenantId: string, name: string): Promise<boolean> {
      return (await db.run(SQL.remove, [tenantId, name])) > 0;
    },
    findIdentity(tenantId: string, issuer: string, subject: string): Promise<IdentityRow | undefined> {
      return db.get<IdentityRow>(SQL.identity, [tenantId, issuer, subject]);
    },
    /** (tenant, issuer, subject) is the primary key: a concurrent twin fails with UniqueViolation. */
    async link(r: IdentityRow): Promise<void> {
      await db.run(SQL.link, [r.tenantId, r.issuer, r.subject, r.userId, r.provider, r.createdAt]);
    },
    async countLinks(tenantId: string, userId: string): Promise<number> {
      return Number((await db.get<{ n: number | string }>(SQL.countLinks, [tenantId, userId]))?.n ?? 0);
    },
    /**
     * Records the first use of an upstream token (by digest) until `expiresAt`: false, and
     * nothing written, when it was used before and that use has not expired. One conditional
     * statement, so of two concurrent uses, in any processes, exactly one is first.
     */
    async recordTokenUse(digest: string, expiresAt: number, now: number): Promise<boolean> {
      return (await db.run(SQL.recordTokenUse, [digest, expiresAt, now])) === 1;
    },
    purgeTokenUses(now: number): Promise<number> {
      return db.run(SQL.purgeTokenUses, [now]);
    },
  };
}

export type ProviderStore = ReturnType<typeof createProviderStore>;
