import type { clients } from '../../db/schema';
import { updateStatement, type Sql } from '../../platform/store/sql';

/** A clients row (table clients, src/db/schema/identity.ts). */
export type ClientRow = typeof clients.$inferSelect;

export type NewClientRow = Omit<ClientRow, 'status' | 'configurationManaged' | 'postLogoutRedirectUris' | 'grantTypes'> &
  Partial<Pick<ClientRow, 'status' | 'configurationManaged' | 'postLogoutRedirectUris' | 'grantTypes'>>;

/** What `update` may change. */
export type ClientChange = Partial<Pick<ClientRow, keyof typeof CHANGE_COLUMNS>>;

/** What `update` may change, with its column. */
const CHANGE_COLUMNS = {
  displayName: 'display_name',
  applicationType: 'application_type',
  tokenEndpointAuthMethod: 'token_endpoint_auth_method',
  consentPolicy: 'consent_policy',
  redirectUris: 'redirect_uris',
  webOrigins: 'web_origins',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  grantTypes: 'grant_types',
  scopes: 'scopes',
  defaultResource: 'default_resource',
  nativeAuthenticationEnabled: 'native_authentication_enabled',
  secretDigest: 'secret_digest',
  status: 'status',
  configurationManaged: 'configuration_managed',
  updatedAt: 'updated_at',
} as const;

const COLUMNS = `tenant_id AS "tenantId", client_id AS "clientId", display_name AS "displayName", application_type AS "applicationType",
  token_endpoint_auth_method AS "tokenEndpointAuthMethod", consent_policy AS "consentPolicy", redirect_uris AS "redirectUris",
  web_origins AS "webOrigins", post_logout_redirect_uris AS "postLogoutRedirectUris", grant_types AS "grantTypes", scopes, default_resource AS "defaultResource", native_authentication_enabled AS "nativeAuthenticationEnabled",
  secret_digest AS "secretDigest", status, configuration_managed AS "configurationManaged", created_at AS "createdAt", updated_at AS "updatedAt"`;

type Raw = Omit<ClientRow, 'nativeAuthenticationEnabled' | 'configurationManaged'> & { nativeAuthenticationEnabled: number; configurationManaged: number };

const fromRaw = (r: Raw): ClientRow => ({ ...r, nativeAuthenticationEnabled: r.nativeAuthenticationEnabled === 1, configurationManaged: r.configurationManaged === 1 });

const SQL = {
  insert: `INSERT INTO clients (tenant_id, client_id, display_name, application_type, token_endpoint_auth_method, consent_policy, redirect_uris,
      web_origins, post_logout_redirect_uris, grant_types, scopes, default_resource, native_authentication_enabled, secret_digest, status, configuration_managed, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  find: `SELECT ${COLUMNS} FROM clients WHERE tenant_id = ? AND client_id = ?`,
  list: `SELECT ${COLUMNS} FROM clients WHERE tenant_id = ? ORDER BY created_at, client_id`,
  listPage: `SELECT ${COLUMNS} FROM clients WHERE tenant_id = ? ORDER BY created_at, client_id LIMIT ? OFFSET ?`,
} as const;

/** Which columns `update` writes, by field. */
const update = updateStatement('clients', CHANGE_COLUMNS, 'tenant_id = ? AND client_id = ?');

export function createClientStore(db: Sql) {
  return {
    async insert(r: NewClientRow): Promise<void> {
      await db.run(SQL.insert, [
        r.tenantId, r.clientId, r.displayName, r.applicationType, r.tokenEndpointAuthMethod, r.consentPolicy, r.redirectUris, r.webOrigins, r.postLogoutRedirectUris ?? null, r.grantTypes ?? null,
        r.scopes, r.defaultResource, r.nativeAuthenticationEnabled ? 1 : 0, r.secretDigest, r.status ?? 'ACTIVE', r.configurationManaged ? 1 : 0,
        r.createdAt, r.updatedAt,
      ]);
    },
    async find(tenantId: string, clientId: string): Promise<ClientRow | undefined> {
      const r = await db.get<Raw>(SQL.find, [tenantId, clientId]);
      return r && fromRaw(r);
    },
    async list(tenantId: string): Promise<ClientRow[]> {
      return (await db.all<Raw>(SQL.list, [tenantId])).map(fromRaw);
    },
    async listPage(tenantId: string, offset: number, limit: number): Promise<ClientRow[]> {
      return (await db.all<Raw>(SQL.listPage, [tenantId, limit, offset])).map(fromRaw);
    },
    async update(tenantId: string, clientId: string, change: ClientChange): Promise<void> {
      const u = update(change);
      if (u) await db.run(u.text, [...u.values, tenantId, clientId]);
    },
  };
}

export type ClientStore = ReturnType<typeof createClientStore>;
