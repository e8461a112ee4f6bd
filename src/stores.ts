import type { Db } from './platform/db';
import { createKeyStore } from './identity/keys/store';
import { createTenantStore } from './identity/tenants/store';

/**
 * Every context's stores bound to one connection. `createStore` (platform/store.ts) binds
 * them twice: to the read connection for plain reads and to the write connection for `tx`.
 * Add a context's store here with one line.
 */
export function bindStores(db: Db) {
  return {
    tenants: createTenantStore(db),
    keys: createKeyStore(db),
  };
}

export type Stores = ReturnType<typeof bindStores>;
