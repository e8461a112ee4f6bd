import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import {
  accessKeys,
  apps,
  bindingCodes,
  bindingTransitions,
  installationAttributes,
  installationGenerations,
  installationSubscriptions,
  installations,
  operationBatches,
  operations,
  profileAttributes,
  profileSubscriptions,
  profileTags,
  profiles,
  revokedInstallations,
  testGroupMembers,
  testGroups,
} from './engage';
import { flagExposures, flagSchedules, flagStickyAssignments, flagVersions, flags, pushChannels, subscriptionLists, syncEnvironments } from './sync';
import { inboxBatches, inboxEntries, inboxOperations, inboxOwners } from './inbox';
import { inAppGrants, inAppImpressions, inAppInteractions, inAppMessages } from './in-app';
import { webhookSecrets } from './webhooks';
import { automationRuns, automationSteps, automationTriggers, automationVersions, automations } from './automations';
import { pushCredentials, pushDeliveries, pushRateWindows, pushSendRecipients, pushSends, pushTemplateVersions, pushTemplates } from './push';

/** Rows owned through a row of the environment (a template's versions), found by the parent's id. */
export interface ChildRows {
  table: SQLiteTable;
  /** The column naming the parent row (indexed: it leads the primary key or an index). */
  owner: SQLiteColumn;
}

/**
 * A table whose rows carry the environment's id in an indexed column: the deletion job picks a
 * batch of their keys by it, deletes the batch's children (rows found by `key`), then the batch.
 */
export interface EnvironmentRows {
  table: SQLiteTable;
  /** The environment column; an index leads with it (so every batch is an index range). */
  environment: SQLiteColumn;
  /** The columns that identify a row (its primary key). */
  key: SQLiteColumn[];
  /** Tables whose rows belong to a row of this one (their owner column names this table's single `key`). */
  children?: ChildRows[];
}

/**
 * Every table that holds data of an engagement environment, in the order the environment
 * deletion job (issue 24 point 1; engage/environments/deletion.ts) erases them: rows that refer
 * to others before those, the environment row itself last. engage/environments/deletion.test.ts
 * reads the migrated database (both engines) and fails for any table with an `environment_id`
 * column, or a column naming an environment-owned row (an installation, profile, app, template,
 * send or test group), that is declared neither here nor in `KEPT_AFTER_DELETION`.
 */
export const environmentOwned: EnvironmentRows[] = [
  // The ledgers first: they name installations, profiles, templates and sends.
  { table: operations, environment: operations.environmentId, key: [operations.seq] },
  { table: pushDeliveries, environment: pushDeliveries.environmentId, key: [pushDeliveries.id] },
  { table: pushSendRecipients, environment: pushSendRecipients.environmentId, key: [pushSendRecipients.recipientId, pushSendRecipients.sendId] },
  { table: pushSends, environment: pushSends.environmentId, key: [pushSends.id] },
  { table: bindingTransitions, environment: bindingTransitions.environmentId, key: [bindingTransitions.id] },
  { table: revokedInstallations, environment: revokedInstallations.environmentId, key: [revokedInstallations.revocationDigest] },
  { table: testGroupMembers, environment: testGroupMembers.environmentId, key: [testGroupMembers.groupId, testGroupMembers.position] },
  { table: testGroups, environment: testGroups.environmentId, key: [testGroups.id] },
  { table: accessKeys, environment: accessKeys.environmentId, key: [accessKeys.id] },
  // The inbox (issue 27): entries and their owners' counters name installations and profiles.
  { table: inboxEntries, environment: inboxEntries.environmentId, key: [inboxEntries.id] },
  { table: inboxOwners, environment: inboxOwners.environmentId, key: [inboxOwners.ownerId] },
  { table: inboxBatches, environment: inboxBatches.environmentId, key: [inboxBatches.installationId, inboxBatches.batchId] },
  { table: inboxOperations, environment: inboxOperations.environmentId, key: [inboxOperations.installationId, inboxOperations.operationId] },
  // Automations (issue 28): runs and their steps name profiles.
  { table: automationSteps, environment: automationSteps.environmentId, key: [automationSteps.runId, automationSteps.seq] },
  { table: automationRuns, environment: automationRuns.environmentId, key: [automationRuns.id] },
  { table: automationTriggers, environment: automationTriggers.environmentId, key: [automationTriggers.environmentId, automationTriggers.idempotencyKey] },
  { table: automationVersions, environment: automationVersions.environmentId, key: [automationVersions.automationId, automationVersions.version] },
  { table: automations, environment: automations.environmentId, key: [automations.environmentId, automations.key] },
  // Outbound webhooks' signing secrets (issue 28).
  { table: webhookSecrets, environment: webhookSecrets.environmentId, key: [webhookSecrets.id] },
  // In-app messages (issue 27), and those automations made eligible for a profile (issue 28).
  { table: inAppGrants, environment: inAppGrants.environmentId, key: [inAppGrants.profileId, inAppGrants.messageId] },
  { table: inAppImpressions, environment: inAppImpressions.environmentId, key: [inAppImpressions.installationId, inAppImpressions.messageId] },
  { table: inAppInteractions, environment: inAppInteractions.environmentId, key: [inAppInteractions.messageId, inAppInteractions.variantId, inAppInteractions.type, inAppInteractions.day] },
  { table: inAppMessages, environment: inAppMessages.environmentId, key: [inAppMessages.environmentId, inAppMessages.key] },
  // Remote-state sync (issue 26): exposures and sticky assignments name installations.
  {
    table: flagExposures,
    environment: flagExposures.environmentId,
    key: [flagExposures.environmentId, flagExposures.flagKey, flagExposures.experimentId, flagExposures.revision, flagExposures.installationId],
  },
  { table: flagStickyAssignments, environment: flagStickyAssignments.environmentId, key: [flagStickyAssignments.installationId, flagStickyAssignments.flagKey] },
  { table: flagSchedules, environment: flagSchedules.environmentId, key: [flagSchedules.id] },
  { table: flagVersions, environment: flagVersions.environmentId, key: [flagVersions.environmentId, flagVersions.flagKey, flagVersions.version] },
  { table: flags, environment: flags.environmentId, key: [flags.environmentId, flags.key] },
  { table: subscriptionLists, environment: subscriptionLists.environmentId, key: [subscriptionLists.environmentId, subscriptionLists.key] },
  { table: pushChannels, environment: pushChannels.environmentId, key: [pushChannels.appId, pushChannels.key] },
  { table: syncEnvironments, environment: syncEnvironments.environmentId, key: [syncEnvironments.environmentId] },
  {
    table: installations,
    environment: installations.environmentId,
    key: [installations.id],
    children: [
      { table: operationBatches, owner: operationBatches.installationId },
      { table: installationAttributes, owner: installationAttributes.installationId },
      { table: installationSubscriptions, owner: installationSubscriptions.installationId },
      { table: bindingCodes, owner: bindingCodes.installationId },
      { table: installationGenerations, owner: installationGenerations.installationId },
    ],
  },
  {
    table: profiles,
    environment: profiles.environmentId,
    key: [profiles.id],
    children: [
      { table: profileAttributes, owner: profileAttributes.profileId },
      { table: profileTags, owner: profileTags.profileId },
      { table: profileSubscriptions, owner: profileSubscriptions.profileId },
    ],
  },
  {
    table: pushTemplates,
    environment: pushTemplates.environmentId,
    key: [pushTemplates.id],
    children: [
      { table: pushTemplateVersions, owner: pushTemplateVersions.templateId },
      { table: pushRateWindows, owner: pushRateWindows.templateId },
    ],
  },
  { table: apps, environment: apps.environmentId, key: [apps.id], children: [{ table: pushCredentials, owner: pushCredentials.appId }] },
];

/**
 * Tables that name an environment but keep their rows after it is deleted, with why. The
 * registry test accepts these and no others.
 */
export const KEPT_AFTER_DELETION: Readonly<Record<string, string>> = {
  // The audit trail outlives what it is about: who created, changed and deleted the environment
  // stays answerable (spec 03 "audit"); its details never hold personal data or a secret.
  audit_events: 'the audit trail of the operators’ changes, the deletion included',
};
