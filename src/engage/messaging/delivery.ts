/**
 * The delivery worker: takes due rows of the outbox (push_deliveries) and sends them to APNs
 * or FCM. It runs as a leased background job (platform/jobs), woken after each send commits;
 * each row is also claimed for the time of its attempt, so a process that dies mid-attempt
 * leaves it due again (at-least-once; the same apns-id and collapse id are sent again, so the
 * device shows one notification, docs/decisions.md).
 *
 * Attempts flow (issue 22 point 3): up to FLOW.concurrency claimed attempts in this process, at
 * most FLOW.perApp of them for one app (one provider credential); as answers free slots, more
 * rows are claimed, skipping apps whose share is full, so a slow device, provider or tenant
 * delays nobody else. Each outcome is recorded within milliseconds of its answer: outcomes are
 * collected for FLOW.commitDelayMs and written in one transaction (group commit), so a crash
 * repeats only the attempts answered in those last milliseconds. The claim's transaction also
 * looks at each claimed delivery's installation again (delivery-recheck.ts).
 *
 * States (docs/decisions.md "Transactional push"): PENDING (admitted, waiting for its first
 * attempt or a retry) -> SENT (the provider accepted it) -> DELIVERED / OPENED (the SDK's
 * PUSH_RECEIPT_RECORDED); PENDING -> FAILED (a permanent error, the token invalid, or too many
 * attempts) or EXPIRED (its TTL passed before a provider accepted it).
 */
import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { retryDelayMs } from '../../platform/work/retry';
import type { ApnsClient } from './apns';
import type { CredentialService } from './credentials';
import type { FcmClient } from './fcm';
import type { AttemptOutcome } from './outcome';
import type { DeliveryMessage } from './message';
import { clearPushTokenIn, type ProfileTx } from '../profiles/service';
import { NO_NOTICES, type ChangeNotices } from '../shared/change-notices';
import type { SendPreferencesTx } from '../preferences/send-preferences';
import { recheckClaimed } from './delivery-recheck';
import type { ClaimedDelivery, MessagingStore } from './store';

// A token a provider reports invalid is cleared through profile state, the installation row's owner (db/owners.ts).
type Stores = { messaging: MessagingStore } & ProfileTx & SendPreferencesTx;

export interface DeliveryMetrics {
  pushDeliveries: { inc(labels: { provider: string; outcome: string }, by?: number): void };
}

export const RETRY = {
  /** First retry after about this long, doubling each attempt (full jitter over the upper half). */
  baseMs: 1_000,
  capMs: 15 * 60_000,
  maxAttempts: 12,
} as const;

/** Exponential backoff with jitter, never sooner than the provider's Retry-After (platform/work). */
export function backoffMs(attempts: number, retryAfter: number | undefined, random = Math.random): number {
  return retryDelayMs(RETRY, attempts, retryAfter, random);
}

export const FLOW = {
  /** Claimed attempts in this process at once (in flight, or waiting for their app's turn). */
  concurrency: 512,
  /** Attempts of one app (one provider credential, one share of a provider connection) in flight at once. */
  perApp: 100,
  /** Rows claimed by one claim, at most. */
  claimBatch: 100,
  /** Outcomes are collected this long, then written in one transaction. */
  commitDelayMs: 5,
  /** How long a claim lasts: the longest a dead process delays its claimed rows. */
  claimMs: 30_000,
  /** An attempt starts only with this much of its claim left (a request and its one retry after a token renewal); otherwise the row is given back. */
  attemptMs: 20_000,
  /** With nothing due and attempts still in flight, how often the worker looks for new due rows besides the wake-ups. */
  idleLookMs: 1_000,
} as const;

/** Outcomes written by one transaction, at most. */
const RECORD_BATCH = 500;

/** An attempt's outcome, or a claim given back without an attempt. */
type Outcome = AttemptOutcome | { kind: 'released' };
interface Claimed {
  row: ClaimedDelivery;
  claimUntil: number;
  /** The app's provider credentials as opened for the claim; undefined when it has none (or they could not be opened). */
  cred: unknown;
  /** The claim's messages, parsed once for the deliveries of one send (rows carry the same text). */
  messages: Map<string, DeliveryMessage>;
}
interface Lane {
  running: number;
  queue: Claimed[];
}
interface Answered {
  row: ClaimedDelivery;
  outcome: Outcome;
  atMs: number;
}

export function createDeliveryWorker(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  logger: Logger;
  credentials: CredentialService;
  apns: ApnsClient;
  fcm: FcmClient;
  metrics?: DeliveryMetrics;
  flow?: Partial<Record<keyof typeof FLOW, number>>;
  /** Told when a provider's answer cleared an installation's push token (its push/state document changed; issue 26). */
  notices?: ChangeNotices;
}) {
  const { store, clock, logger } = deps;
  const notices = deps.notices ?? NO_NOTICES;
  const flow = { ...FLOW, ...deps.flow };
  const count = (provider: string, outcome: string) => deps.metrics?.pushDeliveries.inc({ provider, outcome });
  const nowMs = () => clock.now().getTime();

  /** An app's provider credentials, opened once per claim; undefined when it has none or they cannot be opened. */
  async function credentialsOf(appId: string, provider: ClaimedDelivery['provider']): Promise<unknown> {
    try {
      return await (provider === 'APNS' ? deps.credentials.open(appId, 'APNS') : deps.credentials.open(appId, 'FCM'));
    } catch (e) {
      logger.error('push credentials cannot be opened', { appId, err: e });
      return undefined;
    }
  }

  const sendFailed = (e: unknown): AttemptOutcome => ({ kind: 'retry', error: `send: ${(e as Error).message}` });

  /** One request to the provider (no async frame of its own: an attempt is the flow's unit of cost). */
  function attempt(c: Claimed): Promise<AttemptOutcome> {
    const { row, cred } = c;
    if (!cred) return Promise.resolve({ kind: 'failed', error: 'no provider credentials for the app' });
    let message = c.messages.get(row.message);
    if (!message) {
      try {
        c.messages.set(row.message, (message = JSON.parse(row.message) as DeliveryMessage));
      } catch {
        return Promise.resolve({ kind: 'failed', error: 'the stored message cannot be read' });
      }
    }
    const d = { id: row.id, token: row.token, message, expiresMs: Number(row.expiresMs), createdMs: Number(row.createdMs) };
    return (row.provider === 'APNS' ? deps.apns.send(cred as never, d) : deps.fcm.send(cred as never, d)).catch(sendFailed);
  }

  // ---- Recording: outcomes collected for a few milliseconds, then one transaction (group commit).
  const answered: Answered[] = [];
  let flushing: Promise<void> | undefined;
  let flushTimer: NodeJS.Timeout | undefined;

  function record(a: Answered): void {
    answered.push(a);
    schedule();
  }

  function schedule(): void {
    if (flushing || flushTimer || answered.length === 0) return;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      void flush();
    }, flow.commitDelayMs);
  }

  /** Writes what has been answered; outcomes answered meanwhile go in the next transaction, at once. */
  function flush(): Promise<void> {
    flushing ??= (async () => {
      while (answered.length > 0) await write(answered.splice(0, RECORD_BATCH));
    })().finally(() => (flushing = undefined));
    return flushing;
  }

  async function write(batch: Answered[]): Promise<void> {
    const at = clock.now().toISOString();
    try {
      await store.tx((tx) => settle(tx, batch, at));
    } catch (e) {
      // Not recorded: the rows stay claimed and are attempted again once their claim lapses (at-least-once).
      logger.error('push delivery outcomes not recorded', { count: batch.length, err: e });
      return;
    }
    counted(batch);
  }

  /** The outcomes' writes, in the caller's transaction (a group commit's, or a claim's). */
  async function settle(tx: Stores & Pick<TxScope, 'afterCommit'>, batch: Answered[], at: string): Promise<void> {
    if (batch.length === 0) return;
    await tx.messaging.markSent(batch.filter((a) => a.outcome.kind === 'sent').map((a) => a.row.id), at);
    for (const { row: r, outcome: o, atMs } of batch) {
      switch (o.kind) {
        case 'sent':
          break;
        case 'released':
          await tx.messaging.release(r.id, atMs, at);
          break;
        case 'retry':
          if (Number(r.attempts) >= RETRY.maxAttempts) await tx.messaging.markFinal(r.id, 'FAILED', `${o.error}; gave up after ${r.attempts} attempts`, at);
          else await tx.messaging.markRetry(r.id, atMs + backoffMs(Number(r.attempts), o.retryAfterMs), o.error, at);
          break;
        case 'failed':
          await tx.messaging.markFinal(r.id, o.error === 'expired' ? 'EXPIRED' : 'FAILED', o.error, at);
          break;
        case 'unregistered':
          await tx.messaging.markFinal(r.id, 'FAILED', o.error, at);
          if (await clearPushTokenIn(tx, r.environmentId, r.installationId, r.token, o.sinceMs, at))
            tx.afterCommit(() => notices.installationChanged(r.environmentId, r.installationId));
          break;
      }
    }
  }

  /** Counted once committed (a PostgreSQL transaction may run again): one increment per provider and outcome, not per delivery. */
  function counted(batch: Answered[]): void {
    if (!deps.metrics) return;
    const tally = new Map<string, { provider: string; outcome: string; n: number }>();
    for (const { row, outcome: o } of batch) {
      if (o.kind === 'released') continue;
      const outcome = o.kind === 'failed' && o.error === 'expired' ? 'expired' : o.kind;
      const key = `${row.provider}:${outcome}`;
      const t = tally.get(key);
      if (t) t.n++;
      else tally.set(key, { provider: row.provider, outcome, n: 1 });
    }
    for (const t of tally.values()) deps.metrics.pushDeliveries.inc({ provider: t.provider, outcome: t.outcome }, t.n);
  }

  // ---- Attempts: per-app lanes under a global cap.
  const lanes = new Map<string, Lane>();
  /** Claimed and not yet answered (in flight or waiting in a lane). */
  let held = 0;
  /** What the pump waits for: a free slot (it has more to claim), or a wake-up (nothing was due). */
  let waitingFor: 'slot' | 'wake' = 'wake';
  let wakePump: (() => void) | undefined;
  let poked = false;
  /** A wake-up that came while the pump was claiming: it claims again rather than wait. */
  let missed = false;
  /**
   * Until then (performance.now()), a claim that would skip full apps is not made: the last one
   * found fewer other apps' rows due than it asked for. A send's poke ends it; otherwise it lasts
   * an idle look, so another app's retry that falls due meanwhile waits at most that long. Without
   * it, every claim that fills an app's share was followed by a claim finding nothing.
   */
  let othersDryUntil = 0;
  const wake = () => {
    const w = wakePump;
    wakePump = undefined;
    if (w) w();
    else missed = true;
  };

  function drain(appId: string, lane: Lane): void {
    while (lane.running < flow.perApp && lane.queue.length > 0) {
      const c = lane.queue.shift()!;
      lane.running++;
      void go(c).then((outcome) => {
        lane.running--;
        held--;
        // The answer's time matters only to a retry's due time or a claim given back.
        record({ row: c.row, outcome, atMs: outcome.kind === 'sent' ? 0 : nowMs() });
        if (lane.running === 0 && lane.queue.length === 0) lanes.delete(appId);
        else drain(appId, lane);
        // The pump claims again when this answer frees what it waits for: its app's share, or a batch of slots (not per answer).
        const freedShare = lane.running + lane.queue.length === flow.perApp - 1;
        const freedBatch = held === flow.concurrency - flow.claimBatch;
        if ((waitingFor === 'slot' && (freedShare || freedBatch)) || held === 0) wake();
      });
    }
  }

  function go(c: Claimed): Promise<Outcome> {
    // Waited in its lane so long that its claim could lapse mid-attempt (another process would send it too): given back.
    if (c.claimUntil - nowMs() < flow.attemptMs) return Promise.resolve({ kind: 'released' });
    return attempt(c);
  }

  /** Claims as many due rows as there are free slots (up to a batch): 'full' when the claim was filled. */
  async function claim(): Promise<'full' | 'short' | 'skipped'> {
    const want = Math.min(flow.concurrency - held, flow.claimBatch);
    if (want <= 0) return 'full';
    const skip = [...lanes].filter(([, l]) => l.running + l.queue.length >= flow.perApp).map(([id]) => id);
    if (skip.length > 0 && performance.now() < othersDryUntil) return 'skipped';
    const now = nowMs();
    const claimUntil = now + flow.claimMs;
    const claimedAt = new Date(now).toISOString();
    // What has been answered and is not being written yet goes in the claim's transaction: one commit instead of two.
    const settled = flushing ? [] : answered.splice(0, RECORD_BATCH);
    let result: { claimed: number; keep: ClaimedDelivery[]; skipped: ClaimedDelivery[] };
    try {
      result = await store.tx(async (tx) => {
        await settle(tx, settled, claimedAt);
        const due = await tx.messaging.claimDue(now, claimUntil, want, skip);
        return { claimed: due.length, ...(due.length === 0 ? { keep: due, skipped: due } : await recheckClaimed(tx, due, claimedAt)) };
      });
    } catch (e) {
      // Nothing committed: those outcomes are written by the next group commit.
      answered.unshift(...settled);
      schedule();
      throw e;
    }
    counted(settled);
    const { claimed, keep, skipped } = result;
    if (skip.length > 0 && claimed < want) othersDryUntil = performance.now() + flow.idleLookMs;
    for (const r of skipped) count(r.provider, 'skipped');
    // The provider credentials of the claim's apps, opened once for the claim (credentials.ts).
    const creds = new Map<string, unknown>();
    for (const row of keep) {
      const id = `${row.appId}:${row.provider}`;
      if (!creds.has(id)) creds.set(id, await credentialsOf(row.appId, row.provider));
    }
    const messages = new Map<string, DeliveryMessage>();
    for (const row of keep) {
      // Past its TTL after a first attempt: APNs and FCM would drop it anyway.
      if (Number(row.attempts) > 1 && now > Number(row.expiresMs)) record({ row, outcome: { kind: 'failed', error: 'expired' }, atMs: now });
      else if (Number(row.attempts) > RETRY.maxAttempts) record({ row, outcome: { kind: 'failed', error: `gave up after ${RETRY.maxAttempts} attempts` }, atMs: now });
      else {
        let lane = lanes.get(row.appId);
        if (!lane) lanes.set(row.appId, (lane = { running: 0, queue: [] }));
        lane.queue.push({ row, claimUntil, cred: creds.get(`${row.appId}:${row.provider}`), messages });
        held++;
        drain(row.appId, lane);
      }
    }
    return claimed === want ? 'full' : skip.length > 0 ? 'skipped' : 'short';
  }

  async function pump(): Promise<void> {
    try {
      for (;;) {
        poked = false;
        missed = false;
        const got = await claim();
        if (got === 'full' && held < flow.concurrency) continue;
        if (got !== 'full' && held === 0) break;
        waitingFor = got === 'short' ? 'wake' : 'slot';
        if (poked || missed) continue;
        await new Promise<void>((resolve) => {
          // Waiting for a slot too: an app's share held long by slow answers does not keep another app's rows waiting past an idle look.
          const tick = setTimeout(wake, flow.idleLookMs);
          wakePump = () => {
            clearTimeout(tick);
            resolve();
          };
        });
      }
    } finally {
      // Every attempt answered: what was answered is written before the run ends.
      while (held > 0) await new Promise<void>((resolve) => (wakePump = resolve));
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = undefined;
      do await flush();
      while (answered.length > 0);
    }
  }

  let running: Promise<void> | undefined;
  return {
    /**
     * Delivers everything due now (the job's run), returning once nothing is due and every
     * attempt made is answered and recorded. Claims never overlap (a conditional UPDATE; SKIP
     * LOCKED on PostgreSQL), so several processes share the work.
     */
    run(): Promise<void> {
      running ??= pump().finally(() => (running = undefined));
      return running;
    },
    /** A send committed: while a run is going, it claims at once rather than at its next look. */
    poke(): void {
      poked = true;
      othersDryUntil = 0;
      if (waitingFor === 'wake') wake();
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
