import type { Sql } from './platform/store/sql';
import { bindEngageStores } from './engage/stores';
import { createKeyStore } from './identity/keys/store';
import { createTenantStore } from './identity/tenants/store';
import { createSessionStore } from './identity/sessions/store';
import { createClientStore } from './identity/clients/store';
import { createResourceStore } from './identity/resources/store';
import { createCredentialStore } from './identity/credentials/store';
import { createUserStore } from './identity/users/store';
import { createOAuthStore } from './identity/oauth/store';
import { createJobLeaseStore } from './platform/jobs/store';
import { createVersionStore } from './platform/store/versions';
import { createNativeStore } from './identity/native/store';
import { createMailOutboxStore } from './platform/mail/store';
import { createWorkStore } from './platform/work/store';
import { createMfaStore } from './identity/mfa/store';
import { createProviderStore } from './identity/providers/store';
import { createTransferStore } from './identity/transfer/store';
import { createDirectoryStore } from './identity/directory/store';
import { createAuditStore } from './platform/audit/store';
import { createFederationStore } from './identity/federations/store';
import { createAdminStore } from './identity/admin/store';

/**
 * Every context's stores bound to one `Sql` (platform/store/sql.ts). Each engine binds them to
 * its reads outside transactions and again to each transaction (platform/store/store.ts).
 * Add a context's store here with one line.
 */
export function bindStores(db: Sql) {
  return {
    tenants: createTenantStore(db),
    keys: createKeyStore(db),
    sessions: createSessionStore(db),
    clients: createClientStore(db),
    resources: createResourceStore(db),
    credentials: createCredentialStore(db),
    users: createUserStore(db),
    oauth: createOAuthStore(db),
    jobs: createJobLeaseStore(db),
    versions: createVersionStore(db),
    native: createNativeStore(db),
    mail: createMailOutboxStore(db),
    work: createWorkStore(db),
    mfa: createMfaStore(db),
    providers: createProviderStore(db),
    transfer: createTransferStore(db),
    directory: createDirectoryStore(db),
    audit: createAuditStore(db),
    federations: createFederationStore(db),
    admin: createAdminStore(db),
    ...bindEngageStores(db),
  };
}

export type Stores = ReturnType<typeof bindStores>;
