import type { federationLogins, federations } from '../../db/schema';
import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { Sql } from '../../platform/store/sql';

export type FederationRow = typeof federations.$inferSelect;
export type FederationLoginRow = typeof federationLogins.$inferSelect;

/** A federation as listed: both tenants with their slugs (the issuers are derived from the tenant rows). */
export interface FederationListRow {
  sourceTenantId: string;
  targetTenantId: string;
  status: string;
  createdAt: string;
}

const COLUMNS = `source_tenant_id AS "sourceTenantId", target_tenant_id AS "targetTenantId", status, client_id AS "clientId",
  client_secret_sealed AS "clientSecretSealed", created_at AS "createdAt"`;
const LOGIN = `state_digest AS "stateDigest", target_tenant_id AS "targetTenantId", source_tenant_id AS "sourceTenantId", session_id AS "sessionId",
  interaction_id AS "interactionId", expires_at AS "expiresAt"`;

const SQL = {
  insert: `INSERT INTO federations (source_tenant_id, target_tenant_id, status, client_id, client_secret_sealed, created_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (source_tenant_id, target_tenant_id) DO NOTHING`,
  find: `SELECT ${COLUMNS} FROM federations WHERE source_tenant_id = ? AND target_tenant_id = ?`,
  remove: `DELETE FROM federations WHERE source_tenant_id = ? AND target_tenant_id = ?`,
  list: `SELECT source_tenant_id AS "sourceTenantId", target_tenant_id AS "targetTenantId", status, created_at AS "createdAt"
    FROM federations ORDER BY created_at, source_tenant_id, target_tenant_id LIMIT ? OFFSET ?`,
  intoTarget: `SELECT ${COLUMNS} FROM federations WHERE target_tenant_id = ? AND status = 'ACTIVE' ORDER BY created_at, source_tenant_id`,
  countActive: `SELECT COUNT(*) AS "n" FROM federations WHERE status = 'ACTIVE'`,
  insertLogin: `INSERT INTO federation_logins (state_digest, target_tenant_id, source_tenant_id, session_id, interaction_id, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
  findLogin: `SELECT ${LOGIN} FROM federation_logins WHERE target_tenant_id = ? AND state_digest = ?`,
  consumeLogin: `DELETE FROM federation_logins WHERE target_tenant_id = ? AND state_digest = ?`,
  removeLoginsOf: `DELETE FROM federation_logins WHERE source_tenant_id = ? AND target_tenant_id = ?`,
  sweepLogins: `DELETE FROM federation_logins WHERE expires_at <= ?`,
} as const;

/** Federations between tenants and the brokered sign-ins under way. */
export function createFederationStore(db: Sql) {
  return {
    /** False when the pair is federated already. */
    async insert(r: FederationRow): Promise<boolean> {
      return (await db.run(SQL.insert, [r.sourceTenantId, r.targetTenantId, r.status, r.clientId, r.clientSecretSealed, r.createdAt])) > 0;
    },
    find: (sourceTenantId: string, targetTenantId: string) => db.get<FederationRow>(SQL.find, [sourceTenantId, targetTenantId]),
    async remove(sourceTenantId: string, targetTenantId: string): Promise<boolean> {
      return (await db.run(SQL.remove, [sourceTenantId, targetTenantId])) > 0;
    },
    async list(req: PageRequest): Promise<Page<FederationListRow>> {
      const { limit, offset } = limitOf(req);
      return pageFrom(await db.all<FederationListRow>(SQL.list, [limit, offset]), req);
    },
    /** The ACTIVE federations whose users may sign in at `targetTenantId`. */
    intoTarget: (targetTenantId: string) => db.all<FederationRow>(SQL.intoTarget, [targetTenantId]),
    async countActive(): Promise<number> {
      return Number((await db.get<{ n: number | string }>(SQL.countActive))?.n ?? 0);
    },
    async insertLogin(r: FederationLoginRow): Promise<void> {
      await db.run(SQL.insertLogin, [r.stateDigest, r.targetTenantId, r.sourceTenantId, r.sessionId, r.interactionId, r.expiresAt]);
    },
    findLogin: (targetTenantId: string, stateDigest: string) => db.get<FederationLoginRow>(SQL.findLogin, [targetTenantId, stateDigest]),
    /** The conditional delete that makes a state one-use, on any engine. */
    async consumeLogin(targetTenantId: string, stateDigest: string): Promise<boolean> {
      return (await db.run(SQL.consumeLogin, [targetTenantId, stateDigest])) > 0;
    },
    removeLoginsOf: (sourceTenantId: string, targetTenantId: string) => db.run(SQL.removeLoginsOf, [sourceTenantId, targetTenantId]),
    sweepLogins: (now: number) => db.run(SQL.sweepLogins, [now]),
  };
}

export type FederationStore = ReturnType<typeof createFederationStore>;
