import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Named version channels (migration 0025): a row per channel whose `version` moves in the same
 * transaction as every change to what it versions. `catalog` (tenants, signing keys, clients,
 * resources, resource credentials), `token_state` and `directory` are moved by triggers; other
 * channels by the store's `versions.bump` (platform/store/versions.ts). A process keeps what a
 * channel versions in memory while it stands still (platform/catalog.ts), so a change made by
 * any process, the CLI included, is seen by the next request.
 */
export const versionChannels = sqliteTable('version_channels', {
  name: text('name').primaryKey(),
  version: integer('version').notNull(),
});
