import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import {
  bindingCodes,
  bindingTransitions,
  installationAttributes,
  installationGenerations,
  testGroupMembers,
  installationSubscriptions,
  installations,
  operationBatches,
  operations,
  profileAttributes,
  profileSubscriptions,
  profileTags,
  profiles,
} from './engage';
import { flagExposures, flagStickyAssignments } from './sync';
import { inAppGrants, inAppImpressions } from './in-app';
import { automationRuns, automationSteps } from './automations';
import { inboxBatches, inboxEntries, inboxOperations, inboxOwners } from './inbox';
import { pushDeliveries, pushSendRecipients, pushSends } from './push';

/**
 * What privacy erasure (spec 01, privacy revocation) does to the rows of a table that belong
 * to the erased owner: delete them, or keep them with the named columns cleared (NULL, or the
 * empty value of a NOT NULL column) when the row must stay for others (counts, a ledger).
 */
export type Erasure = 'delete' | { clear: SQLiteColumn[] };

export interface OwnedRows {
  table: SQLiteTable;
  /** The column naming the owner (an installation id, or a profile id). */
  owner: SQLiteColumn;
  erase: Erasure;
}

/**
 * Every table that holds data of an installation, in the order erasure goes through them
 * (rows that refer to the installation row before it). privacy/store.ts `erase` clears exactly
 * this; engage/privacy/erasure.test.ts fails when a table with an installation (or profile)
 * column is missing here, so a new table (inbox, deliveries, automation runs) is declared
 * when it is created.
 */
export const installationOwned: OwnedRows[] = [
  { table: operations, owner: operations.installationId, erase: 'delete' },
  { table: operationBatches, owner: operationBatches.installationId, erase: 'delete' },
  { table: installationAttributes, owner: installationAttributes.installationId, erase: 'delete' },
  { table: installationSubscriptions, owner: installationSubscriptions.installationId, erase: 'delete' },
  { table: bindingCodes, owner: bindingCodes.installationId, erase: 'delete' },
  { table: bindingTransitions, owner: bindingTransitions.installationId, erase: 'delete' },
  { table: installationGenerations, owner: installationGenerations.installationId, erase: 'delete' },
  // A test group names the installation as a member (issue 24): the membership goes.
  { table: testGroupMembers, owner: testGroupMembers.installationId, erase: 'delete' },
  // Deliveries hold the push token and the rendered message.
  { table: pushDeliveries, owner: pushDeliveries.installationId, erase: 'delete' },
  // The sends' index of the installation (after the sends it finds were redacted, below).
  { table: pushSendRecipients, owner: pushSendRecipients.recipientId, erase: 'delete' },
  // The inbox (issue 27): its INSTALLATION-scope entries and their counters, its inbox operations.
  { table: inboxEntries, owner: inboxEntries.ownerId, erase: 'delete' },
  { table: inboxOwners, owner: inboxOwners.ownerId, erase: 'delete' },
  { table: inboxBatches, owner: inboxBatches.installationId, erase: 'delete' },
  { table: inboxOperations, owner: inboxOperations.installationId, erase: 'delete' },
  // Remote-state sync (issue 26): the installation's exposures (the counts lose it) and what it was served while anonymous.
  { table: flagExposures, owner: flagExposures.installationId, erase: 'delete' },
  { table: flagStickyAssignments, owner: flagStickyAssignments.installationId, erase: 'delete' },
  // In-app messages (issue 27): the installation's impression windows (the counts are per message, not per installation).
  { table: inAppImpressions, owner: inAppImpressions.installationId, erase: 'delete' },
  // The row itself: device metadata, push token, credentials.
  { table: installations, owner: installations.id, erase: 'delete' },
];

/**
 * Every table that holds data of a profile. Erasure applies it to the anonymous profiles only
 * the erased installation used; a profile with an external id belongs to the person across
 * devices and stays. Tables that name a profile and an installation (operations) are erased by
 * installation above.
 */
export const profileOwned: OwnedRows[] = [
  { table: profileAttributes, owner: profileAttributes.profileId, erase: 'delete' },
  { table: profileTags, owner: profileTags.profileId, erase: 'delete' },
  { table: profileSubscriptions, owner: profileSubscriptions.profileId, erase: 'delete' },
  // The inbox (issue 27): the profile's PROFILE-scope entries and their counters.
  { table: inboxEntries, owner: inboxEntries.ownerId, erase: 'delete' },
  { table: inboxOwners, owner: inboxOwners.ownerId, erase: 'delete' },
  // The sends' index of the profile (a PROFILE recipient).
  { table: pushSendRecipients, owner: pushSendRecipients.recipientId, erase: 'delete' },
  // In-app messages an automation made eligible for the profile (issue 28).
  { table: inAppGrants, owner: inAppGrants.profileId, erase: 'delete' },
  // Automations (issue 28): the profile's runs (their context and entry event) and their steps' outputs; erasing them ends them.
  // The runs first: a step's transaction writes its step row and then moves its run on, conditional
  // on the run's row; deleting the runs waits for a step in flight to commit (its row is then erased
  // below) or makes it find its run gone and roll back (docs/decisions.md "Sends and erasures: one lock order").
  { table: automationRuns, owner: automationRuns.profileId, erase: 'delete' },
  { table: automationSteps, owner: automationSteps.profileId, erase: 'delete' },
  { table: profiles, owner: profiles.id, erase: 'delete' },
];

/**
 * Erasure of a person's profile through the administration API (issue 24 point 5), after each
 * installation bound to it was erased as above: the operations other installations recorded
 * while bound to the profile (their payloads are the person's events), then the profile's
 * rows as `profileOwned`.
 */
export const erasedProfileOwned: OwnedRows[] = [{ table: operations, owner: operations.profileId, erase: 'delete' }, ...profileOwned];

/**
 * Rows that name the erased profile's external id (the person's identifier in the customer's
 * systems): a test group's member given by external id goes.
 */
export const externalIdOwned: OwnedRows[] = [{ table: testGroupMembers, owner: testGroupMembers.externalId, erase: 'delete' }];

/**
 * Tables that name an installation or a profile in columns not named for it (a recipient
 * value, a stored answer), whose rows stay for others (a ledger) and are redacted by the
 * owning context before the rows above go: privacy/service.ts calls it, through `index`, a
 * table declared above that says which rows name the erased owner. The registry test fails for
 * a table with a recipient column that is declared neither here nor above, and a whole-database
 * search after erasure (messaging/send-erasure.test.ts) for any column still naming it.
 */
export interface MentioningRows {
  table: SQLiteTable;
  /** The columns that may name an installation or profile, or hold what was sent to it. */
  columns: SQLiteColumn[];
  index: SQLiteTable;
  /** Where the redaction is written. */
  redactedBy: string;
}

export const installationMentioned: MentioningRows[] = [
  {
    table: pushSends,
    columns: [pushSends.recipientValue, pushSends.response],
    index: pushSendRecipients,
    redactedBy: 'engage/messaging/send-erasure.ts redactSendsIn',
  },
];
