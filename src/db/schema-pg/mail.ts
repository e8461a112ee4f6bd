import { index, bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { tenants } from './identity';

/**
 * The mail outbox (platform/mail): a message is a row written in the same transaction as the
 * challenge it carries, sent after commit by the mail job, retried with backoff, and deleted
 * once the SMTP server accepted it. The message (recipient, subject, bodies) is sealed with the
 * master key: it carries one-time codes. Instants are epoch seconds.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    /** What the message is for (email-code, registration-code, registration-taken, recovery-code). */
    purpose: text('purpose').notNull(),
    /** The sealed message (AES-256-GCM under the master key, the id as associated data). */
    message: text('message').notNull(),
    /** PENDING until sent (then deleted), FAILED when given up. */
    status: text('status', { enum: ['PENDING', 'FAILED'] }).notNull().default('PENDING'),
    attempts: bigint('attempts', { mode: 'number' }).notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    /** The last SMTP failure, without the message. */
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('mail_outbox_due').on(t.status, t.nextAttemptAt)],
);
