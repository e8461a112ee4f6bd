import { expect } from 'vitest';

/**
 * The api family's error body as a test expects it (native adapter, directory, management):
 * `invalid_request` carries an error_description saying what is wrong (issue 23 point 4), every
 * other code is spec 02/03's bare `{error}`.
 */
export const apiError = (error: string): Record<string, unknown> =>
  error === 'invalid_request' ? { error, error_description: expect.stringMatching(/^[\x20-\x7e]+$/) } : { error };

/**
 * A 400 invalid_request whose error_description names each of `mentions` (every violation of
 * the request, issue 23 point 4), in printable ASCII only: the body is JSON, so `"` and `\` may
 * stay, controls and non-ASCII may not.
 */
export async function expectViolations(res: Response, mentions: string[]): Promise<void> {
  expect(res.status).toBe(400);
  const got = (await res.json()) as { error: string; error_description: string };
  expect(Object.keys(got)).toEqual(['error', 'error_description']);
  expect(got.error).toBe('invalid_request');
  for (const m of mentions) expect(got.error_description).toContain(m);
  expect(got.error_description).toMatch(/^[\x20-\x7E]+$/);
}
