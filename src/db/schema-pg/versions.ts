import { bigint, pgTable, text } from 'drizzle-orm/pg-core';

/**
 * Named version channels (migrations/pg/0025), as on SQLite (db/schema/versions.ts); each move
 * also notifies 'engage_catalog' with `<name>:<version>` (platform/store/pg-versions.ts).
 */
export const versionChannels = pgTable('version_channels', {
  name: text('name').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
});
