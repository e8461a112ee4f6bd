import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Outbound webhooks (issue 28, engage/webhooks): each environment's Standard Webhooks signing
 * secrets, sealed with the master key. The highest generation is the current secret; a rotated
 * one keeps signing until `retiresMs` (null: the current one). Migration 0035 (SQLite and
 * PostgreSQL).
 */
export const webhookSecrets = sqliteTable(
  'webhook_secrets',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id').notNull(),
    generation: integer('generation').notNull(),
    /** `whsec_…` sealed (AES-256-GCM) with the master key, bound to the environment and the id. */
    sealed: text('sealed').notNull(),
    createdAt: text('created_at').notNull(),
    createdMs: integer('created_ms').notNull(),
    retiresMs: integer('retires_ms'),
  },
  (t) => [uniqueIndex('webhook_secrets_environment_generation').on(t.environmentId, t.generation)],
);
