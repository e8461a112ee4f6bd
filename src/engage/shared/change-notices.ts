/**
 * Change notices (issue 26 point 6): what a writer says after its transaction committed, so the
 * sync's Server-Sent Events streams tell the installations concerned to sync. A notice carries
 * no state. Delivered in process and, on PostgreSQL, to every other process (LISTEN/NOTIFY).
 * Writers receive it as a dependency; the default does nothing (the CLI, tests without streams).
 */
export interface ChangeNotices {
  /** A definition of a sync module changed: every installation of the environment may be concerned. */
  definitionsChanged(environmentId: string): void;
  /** The installation's own state (attributes, subscriptions, push state, binding) changed. */
  installationChanged(environmentId: string, installationId: string): void;
  /** The profile's state changed: every installation bound to it may be concerned. */
  profileChanged(environmentId: string, profileId: string): void;
  /**
   * An inbox changed (an entry written, read, unread, deleted; issue 27 point 5): its owner is the
   * installation (INSTALLATION) or the profile (PROFILE). The streams concerned send the new unread count.
   */
  inboxChanged?(environmentId: string, scope: 'PROFILE' | 'INSTALLATION', ownerId: string): void;
  /**
   * The environment stopped serving (disabled, or its deletion started): every stream of its
   * installations ends now instead of at its idle time; the SDK's reconnection is refused (401).
   */
  environmentClosed?(environmentId: string): void;
  /**
   * The app stopped serving (disabled, or deleted): every stream of its installations ends now, as
   * for an environment; their credentials are refused at the edge while the app is not ACTIVE.
   */
  appClosed?(environmentId: string, appId: string): void;
}

export const NO_NOTICES: ChangeNotices = {
  definitionsChanged: () => undefined,
  installationChanged: () => undefined,
  profileChanged: () => undefined,
};
