/**
 * Request deadlines of one length (a provider client's request timeout): one interval timer
 * sweeps them, instead of a timer set and cleared for every request. All have the same length,
 * so they lapse in the order they were set: the sweep looks at the oldest only. A deadline
 * fires between `timeoutMs` and `timeoutMs` plus a tenth of it (at most a second) after it was
 * set. The interval runs only while deadlines are pending, and never keeps the process alive.
 */
export interface Deadline {
  readonly atMs: number;
  /** Undefined once fired or cancelled. */
  fire: (() => void) | undefined;
}

export function createDeadlines(timeoutMs: number, now: () => number = () => performance.now()) {
  type Entry = Deadline;
  let queue: Entry[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;
  const everyMs = Math.max(5, Math.min(1_000, Math.ceil(timeoutMs / 10)));

  function sweep(): void {
    const t = now();
    while (head < queue.length) {
      const e = queue[head];
      if (e.fire && e.atMs > t) break;
      head++;
      const fire = e.fire;
      e.fire = undefined;
      fire?.();
    }
    if (head === queue.length) {
      queue = [];
      head = 0;
      clearInterval(timer);
      timer = undefined;
    } else if (head >= 1_024 && head * 2 >= queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }

  return {
    /** Calls `fire` once `timeoutMs` have passed, unless cancelled first. */
    add(fire: () => void): Deadline {
      const e: Entry = { atMs: now() + timeoutMs, fire };
      queue.push(e);
      if (!timer) {
        timer = setInterval(sweep, everyMs);
        timer.unref();
      }
      return e;
    },
    cancel(e: Deadline): void {
      e.fire = undefined;
    },
    /** Deadlines set and neither fired nor swept away yet (tests). */
    get size(): number {
      return queue.length - head;
    },
  };
}
