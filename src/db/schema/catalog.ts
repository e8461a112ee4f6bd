import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';

/**
 * One row whose `version` moves on every change to the administrative catalogue: tenants,
 * signing keys, clients, resources and resource credentials (triggers in migrations/0001).
 * A process keeps those rows in memory while the version stands still (platform/catalog.ts),
 * so a change made by any process, the CLI included, is seen by the next request.
 */
export const catalogVersion = sqliteTable('catalog_version', {
  id: integer('id').primaryKey(),
  version: integer('version').notNull(),
});
