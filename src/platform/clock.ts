/** Injected time source so services and tests agree on "now". */
export interface Clock {
  now(): Date;
  /** Epoch seconds. */
  nowSeconds(): number;
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowSeconds: () => Math.floor(Date.now() / 1000),
};

export function fixedClock(start: Date): Clock & { advance(seconds: number): void; set(d: Date): void } {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    nowSeconds: () => Math.floor(t / 1000),
    advance: (s) => {
      t += s * 1000;
    },
    set: (d) => {
      t = d.getTime();
    },
  };
}
