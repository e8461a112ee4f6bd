import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import type { TxRunner } from '../store/store';
import type { Metrics } from '../metrics';
import type { JobLeaseStore } from './store';

/**
 * In-process background jobs that run once across processes (DESIGN.md "Storage": background
 * workers take leases). Each job has a row in job_leases; the process holding its lease runs
 * it when due and renews the lease while it lives; another process takes over once a lease has
 * expired (its holder died) or was released (its holder stopped). When the job is next due is
 * stored in the row too, so a takeover keeps the schedule: a job runs once per interval
 * whichever process runs it.
 */
export interface JobDefinition {
  name: string;
  /** Time from the end of one run to the next. */
  intervalMs: number;
  /** Time to the next attempt after a run failed or asked to be retried (default: the interval). */
  retryMs?: number;
  /** The work; 'retry' means "could not do it now, try again after retryMs" (not an error). */
  run(): Promise<void | 'retry'> | void | 'retry';
}

export interface JobRunnerOptions {
  store: TxRunner<{ jobs: JobLeaseStore }>;
  clock: Clock;
  logger: Logger;
  /** This process's id in job_leases.owner (default: host, pid and a random part). */
  owner?: string;
  /** How long a lease lasts without renewal: the longest a dead holder delays its jobs. */
  leaseMs?: number;
  /** Counts runs by job and outcome (platform/metrics.ts). */
  metrics?: Pick<Metrics, 'jobRuns'>;
}

interface JobState {
  def: JobDefinition;
  registered: boolean;
  /** A wake-up not yet acted on. */
  wanted: boolean;
  timer?: NodeJS.Timeout;
  looking?: Promise<void>;
  running?: Promise<void>;
}

export function createJobRunner(opts: JobRunnerOptions) {
  const { store, clock, logger } = opts;
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = opts.leaseMs ?? 30_000;
  // Renewed three times per lease, so one slow look never loses it.
  const renewMs = Math.max(1, Math.floor(leaseMs / 3));
  const jobs = new Map<string, JobState>();
  let started = false;
  let stopped = false;
  const now = () => clock.now().getTime();

  function schedule(s: JobState, delayMs: number): void {
    if (!started || stopped) return;
    if (s.timer) clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void look(s);
    }, Math.max(0, Math.min(delayMs, 2_147_483_647)));
    s.timer.unref();
  }

  /** One look at a job: take or renew its lease; run it when due or woken. One look at a time. */
  function look(s: JobState): Promise<void> {
    if (!s.looking) s.looking = lookOnce(s).finally(() => (s.looking = undefined));
    return s.looking;
  }

  async function lookOnce(s: JobState): Promise<void> {
    const name = s.def.name;
    let delay = renewMs;
    try {
      const t = now();
      const lease = await store.tx(async (tx) => {
        if (!s.registered) await tx.jobs.registerJob(name);
        return tx.jobs.takeLease(name, owner, t, t + leaseMs);
      });
      s.registered = true;
      if (!lease) {
        // Another process holds it: hand the wake-up to that process through the row.
        if (s.wanted) {
          s.wanted = false;
          await store.tx((tx) => tx.jobs.requestRun(name, t));
        }
      } else if (!s.running) {
        if (s.wanted || lease.runAfter <= t) {
          s.wanted = false;
          start(s, lease.runAfter);
        } else {
          delay = Math.min(renewMs, lease.runAfter - t);
        }
      }
    } catch (e) {
      logger.error('job lease failed', { job: name, err: e });
    }
    // While the job runs, this keeps renewing its lease.
    schedule(s, s.wanted && !s.running ? 0 : delay);
  }

  function start(s: JobState, seenRunAfter: number): void {
    s.running = execute(s.def, seenRunAfter).then((untilDue) => {
      s.running = undefined;
      // A wake-up during the run runs it again; otherwise look again to renew or when due.
      schedule(s, s.wanted ? 0 : Math.min(renewMs, untilDue));
    });
  }

  /** Runs the job and records the run; never throws. Returns the time until it is next due. */
  async function execute(def: JobDefinition, seenRunAfter: number): Promise<number> {
    let outcome: 'done' | 'retry' | 'failed' = 'done';
    try {
      if ((await def.run()) === 'retry') outcome = 'retry';
    } catch (e) {
      outcome = 'failed';
      logger.error('job failed', { job: def.name, err: e });
    }
    opts.metrics?.jobRuns.inc({ job: def.name, outcome });
    const at = now();
    const next = at + (outcome === 'done' ? def.intervalMs : (def.retryMs ?? def.intervalMs));
    try {
      const kept = await store.tx((tx) => tx.jobs.recordRun(def.name, owner, at, seenRunAfter, next));
      if (!kept) logger.warn('job lease lost during its run', { job: def.name });
    } catch (e) {
      logger.error('job lease failed', { job: def.name, err: e });
    }
    if (outcome === 'retry') logger.debug('job will be retried', { job: def.name });
    return next - at;
  }

  return {
    owner,

    register(def: JobDefinition): void {
      if (jobs.has(def.name)) throw new Error(`job ${def.name} is already registered`);
      const s: JobState = { def, registered: false, wanted: false };
      jobs.set(def.name, s);
      schedule(s, 0);
    },

    /**
     * Starts looking at every job: first after `delayMs` (so a starting server answers its
     * first requests before housekeeping), then when due or to renew its lease.
     */
    start(delayMs = 0): void {
      if (started) return;
      started = true;
      for (const s of jobs.values()) schedule(s, delayMs);
    },

    /**
     * Runs a job soon: at once here if this process holds its lease, otherwise by its holder at
     * its next look. Meant for after-commit hooks (`tx.afterCommit(() => jobs.wake(name))`).
     * Wake-ups that arrive together run the job once.
     */
    wake(name: string): void {
      const s = jobs.get(name);
      if (!s) throw new Error(`no job ${name}`);
      s.wanted = true;
      if (!s.running && !s.looking) schedule(s, 0);
    },

    /**
     * One look at every job, awaited with the runs it starts. What the timers do, made
     * deterministic for tests (with an injected clock).
     */
    async runDue(): Promise<void> {
      for (const s of jobs.values()) {
        await look(s);
        await s.running;
      }
    },

    /** Stops looking, waits for running jobs to finish, then releases this process's leases. */
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      for (const s of jobs.values()) if (s.timer) clearTimeout(s.timer);
      for (const s of jobs.values()) {
        await s.looking;
        await s.running;
      }
      try {
        await store.tx(async (tx) => {
          for (const s of jobs.values()) if (s.registered) await tx.jobs.releaseLease(s.def.name, owner);
        });
      } catch (e) {
        logger.error('job leases not released', { err: e });
      }
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
