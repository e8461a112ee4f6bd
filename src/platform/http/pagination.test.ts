import { describe, expect, it } from 'vitest';
import { parsePageRequest } from './pagination';

describe('page query', () => {
  it.each([
    ['', { page: 0, size: 50 }],
    ['page=0&size=1', { page: 0, size: 1 }],
    ['page=1000000&size=200', { page: 1_000_000, size: 200 }],
    ['size=7&other=x', { page: 0, size: 7 }],
  ])('%s reads as %o', (q, want) => expect(parsePageRequest(new URLSearchParams(q))).toEqual(want));

  it.each(['page=-1', 'page=1.5', 'page=1e3', 'page=01', 'page=', 'page=x', 'page=1000001', 'size=0', 'size=201', 'size=-5', 'page=1&page=2', 'size=10&size=10', 'size= 5'])(
    '%s is invalid_request',
    (q) => expect(() => parsePageRequest(new URLSearchParams(q))).toThrow(expect.objectContaining({ code: 'invalid_request', kind: 'invalid' })),
  );
});
