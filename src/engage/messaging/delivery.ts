/**
 * The delivery worker: takes due rows of the outbox (push_deliveries) and sends them to APNs
 * or FCM. It runs as a leased background job (platform/jobs), woken after each send commits;
 * each row is also claimed for the time of its attempt, so a process that dies mid-attempt
 * leaves it due again (at-least-once; the same apns-id is sent again, docs/decisions.md).
 *
 * States (docs/decisions.md "Transactional push"): PENDING (admitted, waiting for its first
 * attempt or a retry) -> SENT (the provider accepted it) -> DELIVERED / OPENED (the SDK's
 * PUSH_RECEIPT_RECORDED); PENDING -> FAILED (a permanent error, the token invalid, or too many
 * attempts) or EXPIRED (its TTL passed before a provider accepted it).
 */
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { TxRunner } from '../../platform/store/store';
import type { ApnsClient } from './apns';
import type { CredentialService } from './credentials';
import type { FcmClient } from './fcm';
import type { AttemptOutcome } from './outcome';
import type { DeliveryMessage } from './service';
import { notReadyReason, type PushConditions } from './readiness';
import { clearPushTokenIn, type ProfileTx } from '../profiles/service';
import type { DeliveryRow, MessagingStore } from './store';

// A token a provider reports invalid is cleared through profile state, the installation row's owner (db/owners.ts).
type Stores = { messaging: MessagingStore } & ProfileTx;

export interface DeliveryMetrics {
  pushDeliveries: { inc(labels: { provider: string; outcome: string }, by?: number): void };
}

export const RETRY = {
  /** First retry after about this long, doubling each attempt (full jitter over the upper half). */
  baseMs: 1_000,
  capMs: 15 * 60_000,
  maxAttempts: 12,
} as const;

/** Exponential backoff with jitter, never sooner than the provider's Retry-After. */
export function backoffMs(attempts: number, retryAfter: number | undefined, random = Math.random): number {
  const exp = Math.min(RETRY.capMs, RETRY.baseMs * 2 ** Math.max(0, attempts - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.ceil(Math.max(jittered, retryAfter ?? 0));
}

export function createDeliveryWorker(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  logger: Logger;
  credentials: CredentialService;
  apns: ApnsClient;
  fcm: FcmClient;
  metrics?: DeliveryMetrics;
  /** Rows claimed per round, and how long a claim lasts (the longest a dead process delays them). */
  batchSize?: number;
  claimMs?: number;
  /** Rounds in flight at once. */
  lanes?: number;
}) {
  const { store, clock, logger } = deps;
  const batchSize = deps.batchSize ?? 250;
  const claimMs = deps.claimMs ?? 30_000;
  const lanes = deps.lanes ?? 3;
  const count = (provider: string, outcome: string) => deps.metrics?.pushDeliveries.inc({ provider, outcome });

  async function attempt(row: DeliveryRow, creds: Map<string, Promise<unknown>>): Promise<AttemptOutcome> {
    const message = JSON.parse(row.message) as DeliveryMessage;
    const id = `${row.appId}:${row.provider}`;
    let c = creds.get(id);
    if (!c) creds.set(id, (c = row.provider === 'APNS' ? deps.credentials.open(row.appId, 'APNS') : deps.credentials.open(row.appId, 'FCM')));
    const cred = await c.catch((e: unknown) => {
      logger.error('push credentials cannot be opened', { appId: row.appId, err: e });
      return undefined;
    });
    if (!cred) return { kind: 'failed', error: 'no provider credentials for the app' };
    const d = { id: row.id, token: row.token, message, expiresMs: Number(row.expiresMs), createdMs: Number(row.createdMs) };
    try {
      return row.provider === 'APNS' ? await deps.apns.send(cred as never, d) : await deps.fcm.send(cred as never, d);
    } catch (e) {
      return { kind: 'retry', error: `send: ${(e as Error).message}` };
    }
  }

  /**
   * In the claim's transaction, before any attempt (issue 21 point 15): each claimed delivery's
   * installation as it stands now. One that no longer qualifies (privacy or push subscription
   * opted out, permission denied, token cleared, app disabled) ends FAILED with the admission's
   * code as its reason and no request is made; one whose token changed since admission goes to
   * the current token (the same installation registered again; docs/decisions.md). Returns the
   * deliveries to attempt.
   */
  async function recheck(s: MessagingStore, due: DeliveryRow[], at: string): Promise<{ keep: DeliveryRow[]; skipped: DeliveryRow[] }> {
    const current = await s.currentRecipients(due.map((r) => r.id));
    const keep: DeliveryRow[] = [];
    const skipped: DeliveryRow[] = [];
    for (const r of due) {
      const i = current.get(r.id);
      // Gone: erased with its installation since the claim read it; nothing to record.
      if (!i) continue;
      const reason = i.id === null ? 'NO_PUSH_TOKEN' : notReadyReason(i as PushConditions);
      if (reason) {
        await s.withdraw(r.id, reason, at);
        skipped.push(r);
        continue;
      }
      if (i.pushToken !== r.token) {
        await s.retarget(r.id, i.pushToken!, at);
        r.token = i.pushToken!;
      }
      keep.push(r);
    }
    return { keep, skipped };
  }

  /** One round: claim, check again, send concurrently (HTTP/2 multiplexes), record. The number of rows claimed. */
  async function round(): Promise<number> {
    const nowMs = clock.now().getTime();
    const claimedAt = new Date(nowMs).toISOString();
    const { claimed, keep: rows, skipped } = await store.tx(async (tx) => {
      const due = await tx.messaging.claimDue(nowMs, nowMs + claimMs, batchSize);
      return { claimed: due.length, ...(due.length === 0 ? { keep: due, skipped: due } : await recheck(tx.messaging, due, claimedAt)) };
    });
    // Counted once committed (a PostgreSQL transaction may run again).
    for (const r of skipped) count(r.provider, 'skipped');
    if (rows.length === 0) return claimed;
    const creds = new Map<string, Promise<unknown>>();
    const outcomes = await Promise.all(
      rows.map((r): Promise<AttemptOutcome> | AttemptOutcome => {
        // Past its TTL after a first attempt: APNs and FCM would drop it anyway.
        if (Number(r.attempts) > 1 && nowMs > Number(r.expiresMs)) return { kind: 'failed', error: 'expired' };
        if (Number(r.attempts) > RETRY.maxAttempts) return { kind: 'failed', error: `gave up after ${RETRY.maxAttempts} attempts` };
        return attempt(r, creds);
      }),
    );
    const done = clock.now();
    const at = done.toISOString();
    await store.tx(async (tx) => {
      await tx.messaging.markSent(rows.filter((_r, i) => outcomes[i].kind === 'sent').map((r) => r.id), at);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i];
        const o = outcomes[i];
        switch (o.kind) {
          case 'sent':
            break;
          case 'retry': {
            const last = `${o.error}`;
            if (Number(r.attempts) >= RETRY.maxAttempts) await tx.messaging.markFinal(r.id, 'FAILED', `${last}; gave up after ${r.attempts} attempts`, at);
            else await tx.messaging.markRetry(r.id, done.getTime() + backoffMs(Number(r.attempts), o.retryAfterMs), last, at);
            break;
          }
          case 'failed':
            await tx.messaging.markFinal(r.id, o.error === 'expired' ? 'EXPIRED' : 'FAILED', o.error, at);
            break;
          case 'unregistered':
            await tx.messaging.markFinal(r.id, 'FAILED', o.error, at);
            await clearPushTokenIn(tx, r.environmentId, r.installationId, r.token, o.sinceMs, at);
            break;
        }
      }
    });
    for (let i = 0; i < rows.length; i++) {
      const o = outcomes[i];
      count(rows[i].provider, o.kind === 'failed' && o.error === 'expired' ? 'expired' : o.kind);
    }
    return claimed;
  }

  return {
    /**
     * Delivers everything due now (the job's run). Several rounds overlap, so claiming and
     * recording one batch happen while another is on the wire; claims never overlap (a
     * conditional UPDATE; SKIP LOCKED on PostgreSQL).
     */
    async run(): Promise<void> {
      const loop = async () => {
        while ((await round()) === batchSize);
      };
      await Promise.all(Array.from({ length: lanes }, loop));
    },
    round,
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
