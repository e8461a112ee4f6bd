import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { collectGarbage } from './gc';

describe('collectGarbage', () => {
  it('collects what nothing refers to any more', async () => {
    let garbage: object | undefined = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(garbage);
    garbage = undefined;
    // A WeakRef's target lives at least to the end of the turn that made or read it.
    await turn();
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
    const kept = { payload: 1 };
    const keptRef = new WeakRef(kept);
    await turn();
    collectGarbage();
    expect(keptRef.deref()).toBe(kept);
  });
});
