import type { Clock } from '../clock';
import { newId, type Sealer } from '../crypto';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import type { TxRunner, TxScope } from '../store/store';
import type { MailMessage, MailPurpose } from './messages';
import type { MailOutboxStore } from './store';
import { MailFailure, type MailSender } from './transport';

/** The leased job that sends the outbox (src/jobs.ts registers it). */
export const MAIL_JOB = 'mail.send';

/**
 * Retries: exponential backoff from 30 s, capped at an hour; after 8 attempts (about two
 * hours in all) or a permanent refusal (SMTP 5xx) the message is marked FAILED and kept for
 * the operator, without its code being logged.
 */
export const MAIL_RETRY = { maxAttempts: 8, baseSeconds: 30, maxSeconds: 3600, batch: 20 } as const;

type Stores = { mail: MailOutboxStore };

/** Email addresses in a server's reply, replaced before the reply is logged. */
const withoutAddresses = (text: string) => text.replace(/[^\s<>@"',;:]+@[^\s<>@"',;:]+/g, '[address]');

export const mailUnavailable = () => new DomainError('unavailable', 'temporarily_unavailable', 'no SMTP server is configured (--smtp-url)');

/**
 * The durable mail outbox (DESIGN.md "Storage", outbox pattern): `enqueueIn` writes the sealed
 * message in the caller's transaction and wakes the mail job after commit; the job sends what is
 * due, deletes what the server accepted and reschedules the rest. A 202 of a mail flow therefore
 * means the message is committed, whatever happens to the process afterwards.
 */
export function createMailService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  logger: Logger;
  /** Absent when no SMTP server is configured: mail flows then answer 503. */
  sender?: MailSender;
  /** Wakes the mail job (after commit). */
  wake: () => void;
}) {
  const { store, clock, sealer, logger, sender } = deps;
  const aad = (id: string) => `mail_outbox:${id}`;

  async function deliver(row: { id: string; purpose: string; message: string; attempts: number }): Promise<void> {
    let message: MailMessage;
    try {
      message = JSON.parse(sealer.open(row.message, aad(row.id))) as MailMessage;
    } catch {
      // Sealed under another master key, or damaged: no retry can read it.
      logger.error('mail given up: unreadable', { mailId: row.id, purpose: row.purpose });
      await store.tx((tx) => tx.mail.giveUp(row.id, 'unreadable message'));
      return;
    }
    try {
      await sender!.send(message);
      await store.tx((tx) => tx.mail.markSent(row.id));
    } catch (e) {
      if (!(e instanceof MailFailure)) throw e;
      const attempts = row.attempts + 1;
      // The server's reply may quote the recipient: the log line names the mail by its id only.
      const failure = { mailId: row.id, purpose: row.purpose, provider: 'smtp', ...(e.status ? { status: e.status } : {}), attempts, error: withoutAddresses(e.message) };
      if (e.permanent || attempts >= MAIL_RETRY.maxAttempts) {
        logger.error('mail given up', failure);
        await store.tx((tx) => tx.mail.giveUp(row.id, e.message));
      } else {
        const wait = Math.min(MAIL_RETRY.baseSeconds * 2 ** (attempts - 1), MAIL_RETRY.maxSeconds);
        logger.warn('mail not sent; will retry', { ...failure, retryInSeconds: wait });
        await store.tx((tx) => tx.mail.retryLater(row.id, clock.nowSeconds() + wait, e.message));
      }
    }
  }

  return {
    /** Whether mail can be sent at all (an SMTP server is configured). */
    available: !!sender,

    /** Queues a message in the caller's transaction; throws 503 temporarily_unavailable without SMTP. */
    async enqueueIn(tx: Stores & TxScope, tenantId: string, purpose: MailPurpose, message: MailMessage): Promise<void> {
      if (!sender) throw mailUnavailable();
      const id = newId();
      const now = clock.nowSeconds();
      await tx.mail.insert({ id, tenantId, purpose, message: sealer.seal(JSON.stringify(message), aad(id)), nextAttemptAt: now, createdAt: now });
      tx.afterCommit(deps.wake);
    },

    /** The job: sends every message due now, in batches; one failure never stops the others. */
    async sendDue(): Promise<void> {
      if (!sender) return;
      for (;;) {
        const rows = await store.mail.due(clock.nowSeconds(), MAIL_RETRY.batch);
        for (const row of rows) await deliver(row);
        if (rows.length < MAIL_RETRY.batch) return;
      }
    },

    close(): void {
      sender?.close();
    },
  };
}

export type MailService = ReturnType<typeof createMailService>;
