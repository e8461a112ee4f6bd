import type BetterSqlite3 from 'better-sqlite3';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { clients } from '../../db/schema';

export type ClientRow = typeof clients.$inferSelect;

/** Raw row of the hot-path lookup (every token, revocation and authorize request). */
interface RawClient {
  tenant_id: string;
  client_id: string;
  display_name: string;
  application_type: ClientRow['applicationType'];
  token_endpoint_auth_method: ClientRow['tokenEndpointAuthMethod'];
  consent_policy: ClientRow['consentPolicy'];
  redirect_uris: string;
  web_origins: string | null;
  scopes: string;
  default_resource: string | null;
  native_authentication_enabled: number;
  secret_digest: string | null;
  status: ClientRow['status'];
  configuration_managed: number;
  created_at: string;
  updated_at: string;
}

function fromRaw(r: RawClient): ClientRow {
  return {
    tenantId: r.tenant_id,
    clientId: r.client_id,
    displayName: r.display_name,
    applicationType: r.application_type,
    tokenEndpointAuthMethod: r.token_endpoint_auth_method,
    consentPolicy: r.consent_policy,
    redirectUris: r.redirect_uris,
    webOrigins: r.web_origins,
    scopes: r.scopes,
    defaultResource: r.default_resource,
    nativeAuthenticationEnabled: r.native_authentication_enabled === 1,
    secretDigest: r.secret_digest,
    status: r.status,
    configurationManaged: r.configuration_managed === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function createClientStore(db: Db) {
  // Prepared once, on first use (the store is bound before migrations may have run in tests).
  let byId: BetterSqlite3.Statement | undefined;
  return {
    insert(row: typeof clients.$inferInsert): void {
      db.insert(clients).values(row).run();
    },
    find(tenantId: string, clientId: string): ClientRow | undefined {
      byId ??= db.$client.prepare('SELECT * FROM clients WHERE tenant_id = ? AND client_id = ?');
      const r = byId.get(tenantId, clientId) as RawClient | undefined;
      return r && fromRaw(r);
    },
    list(tenantId: string): ClientRow[] {
      return db.select().from(clients).where(eq(clients.tenantId, tenantId)).orderBy(asc(clients.createdAt), asc(clients.clientId)).all();
    },
    update(tenantId: string, clientId: string, patch: Partial<typeof clients.$inferInsert>): void {
      db.update(clients).set(patch).where(and(eq(clients.tenantId, tenantId), eq(clients.clientId, clientId))).run();
    },
  };
}

export type ClientStore = ReturnType<typeof createClientStore>;
