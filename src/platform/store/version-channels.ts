/**
 * Named version channels (db/schema/versions.ts, migration 0025). A channel versions one body of
 * data that processes keep in memory: it moves in the same transaction as every change to that
 * data (a trigger, or the store's `versions.bump`), and every process sees the move
 * (`StoreEngine.version`: SQLite reads the row once per read snapshot; PostgreSQL counts the
 * notifications). The three fixed channels are moved by triggers; a context that needs one of
 * its own (sync's per environment, the inbox's, automations') names it `<context>:<scope>` and
 * bumps it where it writes.
 */
export const CHANNEL = {
  /** Tenants, signing keys, clients, resources, resource credentials (platform/catalog.ts). */
  catalog: 'catalog',
  /** What ends a signed access token before it expires (identity/oauth/introspection.ts). */
  tokenState: 'token_state',
  /** Directory permissions, roles and assignments (identity/directory/service.ts). */
  directory: 'directory',
} as const;

const NAME = /^[a-z][a-z0-9_]*(?::[A-Za-z0-9_.-]{1,100})?$/;

/** Throws on a name that is not `<word>` or `<word>:<scope>` (ASCII, at most 100 after the colon). */
export function checkChannel(name: string): string {
  if (name.length > 140 || !NAME.test(name)) throw new Error(`not a version channel name: ${JSON.stringify(name).slice(0, 160)}`);
  return name;
}
