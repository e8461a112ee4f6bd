import type { Sql } from '../platform/store/sql';
import { createBindingStore } from './binding/store';
import { createEnvironmentStore } from './environments/store';
import { createInstallationStore } from './installations/store';
import { createOperationStore } from './operations/store';
import { createPrivacyStore } from './privacy/store';
import { createMessagingStore } from './messaging/store';
import { createReceiptStore } from './messaging/receipt-store';
import { createProfileStore } from './profiles/store';

/** The engage contexts' stores on one connection (spread into src/stores.ts `bindStores`). */
export function bindEngageStores(db: Sql) {
  return {
    environments: createEnvironmentStore(db),
    profiles: createProfileStore(db),
    installations: createInstallationStore(db),
    binding: createBindingStore(db),
    operations: createOperationStore(db),
    privacy: createPrivacyStore(db),
    messaging: createMessagingStore(db),
    pushReceipts: createReceiptStore(db),
  };
}

export type EngageStores = ReturnType<typeof bindEngageStores>;
