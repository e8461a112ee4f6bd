/**
 * Profile state (spec 01): an installation's own state (privacy, push subscription, permission
 * and token, its attributes and subscriptions) and its profile's (attributes, tags,
 * subscriptions), each value last-writer-wins on (ms, op): the time the device says it was
 * written, then the operation id for a tie.
 */

/** One installation-level state column's value and its last-writer-wins clock ('' op: never written). */
export interface LwwValue<V> {
  value: V;
  ms: number;
  op: string;
}

/** The installation-level state columns, as read under the installation's lock. */
export interface InstallationState {
  generation: number;
  privacy: LwwValue<'OPTED_IN' | 'OPTED_OUT'>;
  pushSubscription: LwwValue<string>;
  pushPermission: LwwValue<string>;
  pushToken: LwwValue<string | null>;
}

/** The last-writer-wins tables of attributes, tags and subscriptions. */
export type StateKind = 'installationAttributes' | 'profileAttributes' | 'profileTags' | 'installationSubscriptions' | 'profileSubscriptions';
export const STATE_KINDS: readonly StateKind[] = ['installationAttributes', 'profileAttributes', 'profileTags', 'installationSubscriptions', 'profileSubscriptions'];
/** How many key columns each kind's rows start with (owner id, then the key within it). */
export const STATE_KEY_COLUMNS: Readonly<Record<StateKind, number>> = {
  installationAttributes: 2,
  profileAttributes: 2,
  profileTags: 2,
  installationSubscriptions: 2,
  profileSubscriptions: 3,
};

/** A new anonymous installation at generation 0, with its anonymous profile. */
export interface NewInstallation {
  id: string;
  environmentId: string;
  appId: string;
  platform: string;
  locale: string;
  timezone: string;
  sdkVersion: string;
  appVersion: string;
  appBuild: string | null;
  deviceModel: string | null;
  osVersion: string | null;
  credentialDigest: string;
  revocationDigest: string;
  recoveryDigest: string;
  profileId: string;
  createdAt: string;
}

/** An installation as operators see it (`installations show`): its registration fields, then its state; never a credential digest. */
export type InstallationView = Omit<NewInstallation, 'credentialDigest' | 'revocationDigest' | 'recoveryDigest'> & {
  generation: number;
  bindingState: string;
  externalId: string | null;
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushToken: string | null;
  updatedAt: string;
};

/** Device metadata and fresh credential digests a recovery writes. */
export type Recovery = Pick<
  NewInstallation,
  'locale' | 'timezone' | 'sdkVersion' | 'appVersion' | 'appBuild' | 'deviceModel' | 'osVersion' | 'credentialDigest' | 'revocationDigest' | 'recoveryDigest'
> & { updatedAt: string };

/** What `snapshot` answers: an installation's state and its current profile's. */
export interface ProfileSnapshot {
  installation: {
    id: string;
    generation: number;
    privacy: 'OPTED_IN' | 'OPTED_OUT';
    pushSubscription: string;
    pushPermission: string;
    pushToken: string | null;
    /** Attribute values as stored: JSON text. */
    attributes: Record<string, unknown>;
    subscriptions: Record<string, boolean>;
  };
  profile: {
    id: string;
    externalId: string | null;
    attributes: Record<string, unknown>;
    tags: string[];
    subscriptions: { list: string; channel: string; subscribed: boolean }[];
  } | null;
}
