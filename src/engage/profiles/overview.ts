import type { InstallationGroupRow, ProfileOverviewStore } from './overview-store';

export type { InstallationGroupRow };

/**
 * What the environment overview (issue 24 point 1) reads of profile state: the environment's
 * installations grouped by app, binding and push conditions, counted by the database.
 */
export function createProfileOverview(deps: { store: { profileOverview: ProfileOverviewStore } }) {
  return {
    async installationGroups(environmentId: string): Promise<InstallationGroupRow[]> {
      return (await deps.store.profileOverview.installationGroups(environmentId)).map((g) => ({ ...g, tokenHeld: Number(g.tokenHeld), n: Number(g.n) }));
    },
  };
}

export type ProfileOverview = ReturnType<typeof createProfileOverview>;
