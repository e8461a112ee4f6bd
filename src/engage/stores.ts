import type { Sql } from '../platform/store/sql';
import { createBindingStore } from './binding/store';
import { createEnvironmentStore } from './environments/store';
import { createEnvironmentMarkStore } from './environments/managed-store';
import { createMessagingMarkStore } from './messaging/managed-store';
import { createEnvironmentDeletionStore } from './environments/deletion-store';
import { createProfileOverviewStore } from './profiles/overview-store';
import { createOperationOverviewStore } from './operations/overview-store';
import { createMessagingOverviewStore } from './messaging/overview-store';
import { createInstallationStore } from './installations/store';
import { createOperationStore } from './operations/store';
import { createPrivacyStore } from './privacy/store';
import { createMessagingStore } from './messaging/store';
import { createMessagingInspectionStore } from './messaging/inspection-store';
import { createReceiptStore } from './messaging/receipt-store';
import { createProfileStore } from './profiles/store';
import { createDefinitionStore } from './definitions/store';
import { createSyncStore } from './sync/store';
import { createInboxStore } from './inbox/store';
import { createInAppStore } from './in-app/store';
import { createInAppReadStore } from './in-app/read-store';
import { createAutomationStore } from './automations/store';
import { createFlagReadStore } from './flags/read-store';
import { createFlagStore } from './flags/store';
import { createListReadStore } from './preferences/read-store';
import { createPushChannelReadStore } from './push-channels/read-store';
import { createPreferenceStore } from './preferences/store';
import { createPushChannelStore } from './push-channels/store';
import { createSendPreferenceStore } from './preferences/send-preferences';
import { createWebhookSecretStore } from './webhooks/store';

/** The engage contexts' stores on one connection (spread into src/stores.ts `bindStores`). */
export function bindEngageStores(db: Sql) {
  return {
    environments: createEnvironmentStore(db),
    // The configuration-managed marks of `engage apply` (issue 24), one per owning context.
    environmentMarks: createEnvironmentMarkStore(db),
    messagingMarks: createMessagingMarkStore(db),
    environmentDeletion: createEnvironmentDeletionStore(db),
    // Read-only counts for the environment overview (issue 24), one per owning context.
    profileOverview: createProfileOverviewStore(db),
    operationOverview: createOperationOverviewStore(db),
    messagingOverview: createMessagingOverviewStore(db),
    profiles: createProfileStore(db),
    installations: createInstallationStore(db),
    binding: createBindingStore(db),
    operations: createOperationStore(db),
    privacy: createPrivacyStore(db),
    messaging: createMessagingStore(db),
    messagingInspection: createMessagingInspectionStore(db),
    pushReceipts: createReceiptStore(db),
    // Remote-state sync (issue 26): the definitions revision of each environment.
    definitions: createDefinitionStore(db),
    // What the sync reads of each module's definitions (and the flags' sticky assignments).
    flagReads: createFlagReadStore(db),
    // Flags, their versions, scheduled changes and exposures (engage/flags).
    flags: createFlagStore(db),
    listReads: createListReadStore(db),
    pushChannelReads: createPushChannelReadStore(db),
    sync: createSyncStore(db),
    // The inbox (issue 27).
    inbox: createInboxStore(db),
    // In-app messages (issue 27): messages, interaction counts, impression windows.
    inApp: createInAppStore(db),
    inAppReads: createInAppReadStore(db),
    // Automations (issue 28): definitions, versions, runs, steps, the trigger's idempotency ledger.
    automations: createAutomationStore(db),
    // Subscription lists (engage/preferences) and push channels and categories (engage/push-channels).
    preferences: createPreferenceStore(db),
    pushChannels: createPushChannelStore(db),
    // What a send reads of its recipients' preferences (engage/preferences' read model).
    sendPreferences: createSendPreferenceStore(db),
    // Outbound webhooks (issue 28): each environment's signing secrets, sealed.
    webhookSecrets: createWebhookSecretStore(db),
  };
}

export type EngageStores = ReturnType<typeof bindEngageStores>;
