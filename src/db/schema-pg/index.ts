/**
 * The PostgreSQL schema: src/db/schema (SQLite) table for table, column for column, so stores
 * share their SQL (platform/store/sql.ts). Integers are bigint read as JS numbers; booleans
 * stay integers 0/1 as on SQLite. schema-parity.test.ts fails when the two drift apart, and
 * migrated-schema.test.ts when migrations/pg/ (written by hand) and these declarations do.
 */
export * from './identity';
export * from './sessions';
export * from './engage';
export * from './versions';
export * from './jobs';
export * from './push';
export * from './native';
export * from './mail';
export * from './second-factors';
export * from './transfer';
export * from './directory';
export * from './federations';
export * from './work';
export * from './sync';
export * from './inbox';
export * from './in-app';
export * from './webhooks';
export * from './automations';
