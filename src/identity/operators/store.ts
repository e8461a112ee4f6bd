import type { Sql } from '../../platform/store/sql';

/**
 * What `engage apply` and the control tenant's initialisation need beyond today's services:
 * the `configuration_managed` mark on what they own, the full replacement of a managed client
 * or resource, and secrets given by the operator (environment variables) instead of generated.
 * Kept in this one store, named for what it means, so the lead can move each method onto the
 * owning context's store when the management API's update functions land (docs/decisions.md,
 * "Operators and declarative bootstrap"). Every table written here carries catalogue triggers
 * (migrations/0001), so each change reaches every process's caches on its next request.
 */
export interface ManagedClientFields {
  displayName: string;
  applicationType: 'WEB' | 'NATIVE';
  tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC' | 'NONE';
  consentPolicy: 'EXPLICIT' | 'PRE_AUTHORIZED';
  redirectUris: string;
  scopes: string;
  defaultResource: string | null;
  nativeAuthenticationEnabled: boolean;
  webOrigins: string | null;
  updatedAt: string;
}

export interface ManagedCredential {
  id: string;
  secretDigest: string;
  status: 'ACTIVE' | 'REVOKED';
}

/** A resource as apply compares it: scopes as stored (a JSON array). */
export interface ManagedResource {
  id: string;
  uri: string;
  scopes: string;
  managed: boolean;
}
type RawResource = Omit<ManagedResource, 'managed'> & { managed: number };

const SQL = {
  markTenant: `UPDATE tenants SET configuration_managed = 1 WHERE id = ? AND configuration_managed = 0`,
  markClient: `UPDATE clients SET configuration_managed = 1 WHERE tenant_id = ? AND client_id = ? AND configuration_managed = 0`,
  markResource: `UPDATE resources SET configuration_managed = 1 WHERE tenant_id = ? AND id = ? AND configuration_managed = 0`,
  markCredential: `UPDATE resource_credentials SET configuration_managed = 1 WHERE tenant_id = ? AND id = ? AND configuration_managed = 0`,
  resourceByAudience: `SELECT id, uri, scopes, configuration_managed AS "managed" FROM resources WHERE tenant_id = ? AND audience = ?`,
  resourceByUri: `SELECT id, uri, scopes, configuration_managed AS "managed" FROM resources WHERE tenant_id = ? AND uri = ?`,
  replaceResource: `UPDATE resources SET uri = ?, scopes = ?, status = 'ACTIVE' WHERE tenant_id = ? AND id = ?`,
  replaceClient: `UPDATE clients SET display_name = ?, application_type = ?, token_endpoint_auth_method = ?, consent_policy = ?, redirect_uris = ?,
      scopes = ?, default_resource = ?, native_authentication_enabled = ?, web_origins = ?, status = 'ACTIVE', updated_at = ?
    WHERE tenant_id = ? AND client_id = ?`,
  clientSecret: `UPDATE clients SET secret_digest = ?, updated_at = ? WHERE tenant_id = ? AND client_id = ?`,
  managedCredential: `SELECT id, secret_digest AS "secretDigest", status FROM resource_credentials
    WHERE tenant_id = ? AND resource_id = ? AND configuration_managed = 1 AND status = 'ACTIVE' ORDER BY created_at LIMIT 1`,
  credentialSecret: `UPDATE resource_credentials SET secret_digest = ? WHERE tenant_id = ? AND id = ?`,
  tenantRegistrationMode: `UPDATE tenants SET registration_mode = ?, updated_at = ? WHERE id = ?`,
  managedPermissions: `SELECT key FROM directory_permissions WHERE tenant_id = ? AND configuration_managed = 1`,
  managedRoles: `SELECT key FROM directory_roles WHERE tenant_id = ? AND configuration_managed = 1`,
  markPermission: `UPDATE directory_permissions SET configuration_managed = 1 WHERE tenant_id = ? AND key = ?`,
  markRole: `UPDATE directory_roles SET configuration_managed = 1 WHERE tenant_id = ? AND key = ?`,
  replacePermission: `UPDATE directory_permissions SET display_name = ?, status = 'ACTIVE' WHERE tenant_id = ? AND key = ?`,
  replaceRole: `UPDATE directory_roles SET display_name = ?, status = 'ACTIVE' WHERE tenant_id = ? AND key = ?`,
} as const;

export function createConfigurationStore(db: Sql) {
  return {
    /** Each `mark*` answers whether it changed the row (false: it was marked already). */
    async markTenant(tenantId: string): Promise<boolean> {
      return (await db.run(SQL.markTenant, [tenantId])) === 1;
    },
    async markClient(tenantId: string, clientId: string): Promise<boolean> {
      return (await db.run(SQL.markClient, [tenantId, clientId])) === 1;
    },
    async markResource(tenantId: string, resourceId: string): Promise<boolean> {
      return (await db.run(SQL.markResource, [tenantId, resourceId])) === 1;
    },
    async markCredential(tenantId: string, credentialId: string): Promise<boolean> {
      return (await db.run(SQL.markCredential, [tenantId, credentialId])) === 1;
    },
    async resourceByAudience(tenantId: string, audience: string): Promise<ManagedResource | undefined> {
      const r = await db.get<RawResource>(SQL.resourceByAudience, [tenantId, audience]);
      return r && { ...r, managed: r.managed === 1 };
    },
    async resourceByUri(tenantId: string, uri: string): Promise<ManagedResource | undefined> {
      const r = await db.get<RawResource>(SQL.resourceByUri, [tenantId, uri]);
      return r && { ...r, managed: r.managed === 1 };
    },
    /** The managed resource's URI and scopes as declared (audience is its identity and stays). */
    async replaceResource(tenantId: string, resourceId: string, uri: string, scopes: string): Promise<void> {
      await db.run(SQL.replaceResource, [uri, scopes, tenantId, resourceId]);
    },
    async replaceClient(tenantId: string, clientId: string, f: ManagedClientFields): Promise<void> {
      await db.run(SQL.replaceClient, [
        f.displayName, f.applicationType, f.tokenEndpointAuthMethod, f.consentPolicy, f.redirectUris, f.scopes, f.defaultResource,
        f.nativeAuthenticationEnabled ? 1 : 0, f.webOrigins, f.updatedAt, tenantId, clientId,
      ]);
    },
    /** A confidential client's secret given by the operator (its SHA-256 digest, as the client service stores it). */
    async setClientSecretDigest(tenantId: string, clientId: string, secretDigest: string | null, updatedAt: string): Promise<void> {
      await db.run(SQL.clientSecret, [secretDigest, updatedAt, tenantId, clientId]);
    },
    /** The ACTIVE credential apply keeps for a resource (one per resource), if any. */
    managedCredential(tenantId: string, resourceId: string): Promise<ManagedCredential | undefined> {
      return db.get<ManagedCredential>(SQL.managedCredential, [tenantId, resourceId]);
    },
    async setRegistrationMode(tenantId: string, mode: 'CONTROLLED' | 'SELF_SERVICE', updatedAt: string): Promise<void> {
      await db.run(SQL.tenantRegistrationMode, [mode, updatedAt, tenantId]);
    },
    /** The keys of the tenant's directory permissions and roles apply owns. */
    async managedDirectoryKeys(tenantId: string): Promise<{ permissions: Set<string>; roles: Set<string> }> {
      const keys = async (text: string) => new Set((await db.all<{ key: string }>(text, [tenantId])).map((r) => r.key));
      return { permissions: await keys(SQL.managedPermissions), roles: await keys(SQL.managedRoles) };
    },
    /** A managed permission's display name as declared (re-enabled if it was disabled); marks it. */
    async replacePermission(tenantId: string, key: string, displayName: string): Promise<void> {
      await db.run(SQL.replacePermission, [displayName, tenantId, key]);
      await db.run(SQL.markPermission, [tenantId, key]);
    },
    async replaceRole(tenantId: string, key: string, displayName: string): Promise<void> {
      await db.run(SQL.replaceRole, [displayName, tenantId, key]);
      await db.run(SQL.markRole, [tenantId, key]);
    },
    async setCredentialSecretDigest(tenantId: string, credentialId: string, secretDigest: string): Promise<void> {
      await db.run(SQL.credentialSecret, [secretDigest, tenantId, credentialId]);
    },
  };
}

export type ConfigurationStore = ReturnType<typeof createConfigurationStore>;
