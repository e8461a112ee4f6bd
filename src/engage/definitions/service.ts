import type { DefinitionStore, SyncEnvironmentRow } from './store';

export type { SyncEnvironmentRow } from './store';

/**
 * The definitions revision (issue 26): what a definition's writer calls in its own transaction.
 * `nextDefinitionRevisionIn` returns the revision the change is stored under (`revision` of its
 * row); every change of one transaction may share it. Callers write definitions only after it,
 * so the counter's lock is taken first and held to the commit.
 */
export type DefinitionsTx = { definitions: DefinitionStore };

/** Sync refresh interval bounds (spec 01: minimum 30, default 900). */
export const REFRESH_AFTER = { min: 30, default: 900, max: 86_400 } as const;

/** The least time between two in-app messages on a device (issue 27; Braze's default is 30 s). */
export const IN_APP_MIN_INTERVAL = { min: 0, default: 30, max: 86_400 } as const;

export function nextDefinitionRevisionIn(tx: DefinitionsTx, environmentId: string, at: string): Promise<number> {
  return tx.definitions.next(environmentId, at);
}

/** The environment's definitions revision, tombstone horizon and refresh interval (defaults when nothing was ever defined). */
export async function syncEnvironmentIn(tx: DefinitionsTx, environmentId: string): Promise<SyncEnvironmentRow> {
  return (
    (await tx.definitions.read(environmentId)) ?? {
      revision: 0,
      horizon: 0,
      refreshAfterSeconds: REFRESH_AFTER.default,
      inAppMinIntervalSeconds: IN_APP_MIN_INTERVAL.default,
      inAppSettingsRevision: 0,
    }
  );
}

export function setRefreshAfterIn(tx: DefinitionsTx, environmentId: string, seconds: number, at: string): Promise<void> {
  return tx.definitions.setRefreshAfter(environmentId, seconds, at);
}

/** Sets the in-app minimum interval under a new definitions revision: the IN_APP settings document changes with it. */
export async function setInAppMinIntervalIn(tx: DefinitionsTx, environmentId: string, seconds: number, at: string): Promise<void> {
  const revision = await tx.definitions.next(environmentId, at);
  await tx.definitions.setInAppMinInterval(environmentId, seconds, revision, at);
}

export function raiseHorizonIn(tx: DefinitionsTx, environmentId: string, horizon: number): Promise<void> {
  return tx.definitions.raiseHorizon(environmentId, horizon);
}
