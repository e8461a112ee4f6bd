import type { Sql } from '../../platform/store/sql';

export const LIST_CHANNELS = ['PUSH', 'EMAIL', 'SMS', 'WHATSAPP'] as const;
export type ListChannel = (typeof LIST_CHANNELS)[number];

/** A subscription list as stored (`subscription_lists.definition`, JSON): what its schema admits. */
export interface ListDefinition {
  key: string;
  displayName: string;
  description?: string;
  /** The channels the list sends on, at least one, no repeats. */
  channels: ListChannel[];
  /** Whether an installation or profile that never chose is subscribed. */
  defaultSubscribed: boolean;
  /** A list nobody can leave (Novu's critical workflows): always subscribed. */
  critical: boolean;
}

export interface ListRow {
  key: string;
  revision: number;
  deleted: boolean;
  /** ListDefinition as JSON. */
  definition: string;
}

const SQL = {
  lists: 'SELECT key, revision, deleted, definition FROM subscription_lists WHERE environment_id = ? ORDER BY key',
} as const;

/** What the sync reads of the preferences context (issue 26): every list of an environment, deleted ones included (tombstones). */
export function createListReadStore(db: Sql) {
  return {
    lists: async (environmentId: string): Promise<ListRow[]> =>
      (await db.all<{ key: string; revision: number; deleted: number; definition: string }>(SQL.lists, [environmentId])).map((r) => ({
        key: r.key,
        revision: Number(r.revision),
        deleted: Number(r.deleted) === 1,
        definition: r.definition,
      })),
  };
}

export type ListReadStore = ReturnType<typeof createListReadStore>;
