import { describe, expect, it } from 'vitest';
import { sizeThreadPool, threadPoolSize } from './thread-pool';

describe('thread pool size', () => {
  it('is the cores each serving process has, at least two', () => {
    expect(threadPoolSize(2, 1)).toBe(2);
    expect(threadPoolSize(1, 1)).toBe(2);
    expect(threadPoolSize(8, 1)).toBe(8);
    expect(threadPoolSize(8, 2)).toBe(4);
    expect(threadPoolSize(6, 4)).toBe(2);
    expect(threadPoolSize(16, 3)).toBe(6);
    expect(threadPoolSize(4, 0)).toBe(4);
  });

  it('sets UV_THREADPOOL_SIZE when the operator has not, and keeps the operator’s own', () => {
    const unset: NodeJS.ProcessEnv = {};
    const n = sizeThreadPool(1, unset);
    expect(n).toBeGreaterThanOrEqual(2);
    expect(unset.UV_THREADPOOL_SIZE).toBe(String(n));
    const own: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '7' };
    expect(sizeThreadPool(1, own)).toBe(7);
    expect(own.UV_THREADPOOL_SIZE).toBe('7');
  });
});
