import { bigint, pgTable } from 'drizzle-orm/pg-core';

/**
 * One row whose `version` moves on every change to the administrative catalogue: tenants,
 * signing keys, clients, resources and resource credentials (triggers in migrations/pg/0001, which also notify 'engage_catalog').
 * A process keeps those rows in memory while the version stands still (platform/catalog.ts),
 * so a change made by any process, the CLI included, is seen by the next request.
 */
export const catalogVersion = pgTable('catalog_version', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
});
