import type { Clock } from '../clock';
import { newId, type Sealer } from '../crypto';
import { DomainError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { TxRunner, TxScope } from '../store/store';
import type { MailMessage, MailPurpose } from './messages';
import type { MailOutboxStore, MailRow } from './store';
import { MailFailure, type MailSender } from './transport';
import type { RetryPolicy } from '../work/retry';
import { createWorker, type WorkOutcome } from '../work/worker';

/**
 * Retries: exponential backoff from 30 s, capped at an hour; after 8 attempts (about two
 * hours in all) or a permanent refusal (SMTP 5xx) the message is marked FAILED and kept for
 * the operator, without its code being logged. No jitter: one relay, a trickle of messages, and
 * a schedule the operator can read off the row (platform/work's retry with `jitter: 0`).
 */
export const MAIL_RETRY = { maxAttempts: 8, baseSeconds: 30, maxSeconds: 3600, batch: 20 } as const;
const MAIL_POLICY: RetryPolicy = { baseMs: MAIL_RETRY.baseSeconds * 1000, capMs: MAIL_RETRY.maxSeconds * 1000, maxAttempts: MAIL_RETRY.maxAttempts, jitter: 0 };
/** A claimed message not answered within this long is due again (its process died mid-send). */
const MAIL_LEASE_MS = 120_000;

type Stores = { mail: MailOutboxStore };

/** Email addresses in a server's reply, replaced before the reply is logged. */
const withoutAddresses = (text: string) => text.replace(/[^\s<>@"',;:]+@[^\s<>@"',;:]+/g, '[address]');

export const mailUnavailable = () => new DomainError('unavailable', 'temporarily_unavailable', 'no SMTP server is configured (--smtp-url)');

/**
 * The durable mail outbox (DESIGN.md "Storage", outbox pattern): `enqueueIn` writes the sealed
 * message in the caller's transaction and wakes its worker after commit (platform/work: the outbox
 * is a work table, claimed row by row by every serving process); the worker sends what is due,
 * deletes what the server accepted and reschedules the rest. A 202 of a mail flow therefore
 * means the message is committed, whatever happens to the process afterwards.
 */
export function createMailService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  logger: Logger;
  /** Absent when no SMTP server is configured: mail flows then answer 503. */
  sender?: MailSender;
  metrics?: Pick<Metrics, 'workItems'>;
}) {
  const { store, clock, sealer, logger, sender } = deps;
  const aad = (id: string) => `mail_outbox:${id}`;
  // The outbox keeps epoch seconds; the worker's lease and due times are milliseconds.
  const sec = (ms: number) => Math.ceil(ms / 1000);
  /** What the log line of an attempt's outcome names (never the address). */
  const failures = new WeakMap<MailRow, Record<string, unknown>>();

  async function attempt(row: MailRow): Promise<WorkOutcome> {
    let message: MailMessage;
    try {
      message = JSON.parse(sealer.open(row.message, aad(row.id))) as MailMessage;
    } catch {
      // Sealed under another master key, or damaged: no retry can read it.
      logger.error('mail given up: unreadable', { mailId: row.id, purpose: row.purpose });
      return { kind: 'failed', error: 'unreadable message' };
    }
    try {
      await sender!.send(message);
      return { kind: 'done' };
    } catch (e) {
      if (!(e instanceof MailFailure)) throw e;
      // The server's reply may quote the recipient: the log line names the mail by its id only.
      failures.set(row, { mailId: row.id, purpose: row.purpose, provider: 'smtp', ...(e.status ? { status: e.status } : {}), attempts: Number(row.attempts), error: withoutAddresses(e.message) });
      return e.permanent ? { kind: 'failed', error: e.message } : { kind: 'retry', error: e.message };
    }
  }

  const worker = createWorker<MailRow>(
    {
      name: 'mail',
      leaseMs: MAIL_LEASE_MS,
      batch: MAIL_RETRY.batch,
      concurrency: 1,
      claim: (now, until, limit) => (sender ? store.tx((tx) => tx.mail.claim(Math.floor(now / 1000), sec(until), limit)) : Promise.resolve([])),
      nextDueMs: async () => {
        const due = sender ? await store.mail.nextDue() : undefined;
        return due === undefined ? undefined : due * 1000;
      },
      attempts: (row) => Number(row.attempts),
      retry: () => MAIL_POLICY,
      attempt,
      settle(row, until, s) {
        const failure = failures.get(row);
        if (s.kind === 'retry') logger.warn('mail not sent; will retry', { ...failure, retryInSeconds: sec(s.dueMs) - sec(clock.now().getTime()) });
        else if (s.kind === 'failed' && failure) logger.error('mail given up', failure);
        return store.tx((tx) =>
          s.kind === 'done' ? tx.mail.markSent(row.id, sec(until)) : s.kind === 'retry' ? tx.mail.retryLater(row.id, sec(until), sec(s.dueMs), s.error) : tx.mail.giveUp(row.id, sec(until), s.error),
        );
      },
      renew: (row, from, to) => store.tx((tx) => tx.mail.renew(row.id, sec(from), sec(to))),
    },
    { clock, logger, metrics: deps.metrics },
  );

  return {
    /** Whether mail can be sent at all (an SMTP server is configured). */
    available: !!sender,

    /** Queues a message in the caller's transaction; throws 503 temporarily_unavailable without SMTP. */
    async enqueueIn(tx: Stores & TxScope, tenantId: string, purpose: MailPurpose, message: MailMessage): Promise<void> {
      if (!sender) throw mailUnavailable();
      const id = newId();
      const now = clock.nowSeconds();
      await tx.mail.insert({ id, tenantId, purpose, message: sealer.seal(JSON.stringify(message), aad(id)), nextAttemptAt: now, createdAt: now });
      worker.wakeAfterCommit(tx);
    },

    /** Sends every message due now, in batches; one failure never stops the others (what the worker's timer does). */
    sendDue: (): Promise<void> => worker.run(),

    /** The outbox's worker (platform/work): started and stopped with the work queue. */
    worker,

    close(): void {
      sender?.close();
    },
  };
}

export type MailService = ReturnType<typeof createMailService>;
