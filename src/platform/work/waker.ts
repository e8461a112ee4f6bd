import type { Clock } from '../clock';
import type { Logger } from '../logger';
import type { TxScope } from '../store/store';

/**
 * When a worker of platform/work looks for due work (issue 22 point 2): woken after commit, in
 * this process (`wakeAfterCommit(tx)`), and otherwise by ONE timer armed at the earliest due time
 * of its table, never longer than `idleMs` (how soon work committed by another process is found).
 * An item due hours away therefore costs a row, not a timer. `drain` does the work due now; a
 * wake-up during it makes it look again (`takeWake()` tells it; otherwise the next drain runs
 * right after). Started by `serve`; tests call `run()` themselves.
 */
export function createWaker(opts: { name: string; clock: Clock; logger: Logger; idleMs?: number; drain(): Promise<void>; nextDueMs(): Promise<number | undefined> }) {
  const { clock, logger } = opts;
  const idleMs = opts.idleMs ?? 10_000;
  let started = false;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let timerDelayMs: number | undefined;

  async function arm(): Promise<void> {
    if (!started || stopped) return;
    let delay = idleMs;
    try {
      const next = await opts.nextDueMs();
      if (next !== undefined && next !== null) delay = Math.max(0, Math.min(idleMs, Number(next) - clock.now().getTime()));
    } catch (e) {
      logger.error('work source unreadable', { kind: opts.name, err: e });
    }
    if (started && !stopped) schedule(delay);
  }

  function schedule(delay: number): void {
    if (timer) clearTimeout(timer);
    timerDelayMs = delay;
    timer = setTimeout(() => {
      timer = undefined;
      timerDelayMs = undefined;
      void run();
    }, delay);
    timer.unref();
  }

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    again = false;
    running = (async () => {
      try {
        await opts.drain();
      } catch (e) {
        logger.error('work claim failed', { kind: opts.name, err: e });
      }
      await arm();
      running = undefined;
      // Woken after the drain last looked: look again at once.
      if (again && started && !stopped) schedule(0);
    })();
    return running;
  }

  const wake = (): void => {
    if (stopped) return;
    if (running) again = true;
    else if (started) schedule(0);
  };

  return {
    /** Does the work due now; resolves once `drain` has. One drain at a time. */
    run,
    /** Work was committed: look at once. */
    wake,
    /** Wakes once the caller's transaction commits (never after a rollback). */
    wakeAfterCommit(tx: TxScope): void {
      tx.afterCommit(wake);
    },
    /** Whether a wake-up came since the drain last asked (and forgets it). */
    takeWake(): boolean {
      const w = again;
      again = false;
      return w;
    },
    /** Starts the timer (serve); `delayMs` before the first look. */
    start(delayMs = 0): void {
      if (started) return;
      started = true;
      schedule(delayMs);
    },
    /** How long the one timer sleeps, when armed (tests, inspection). */
    timerDelayMs: () => timerDelayMs,
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}

export type Waker = ReturnType<typeof createWaker>;
