import { expect } from 'vitest';

/**
 * The api family's error body as a test expects it (native adapter, directory, management):
 * `invalid_request` carries an error_description saying what is wrong (issue 23 point 4), every
 * other code is spec 02/03's bare `{error}`.
 */
export const apiError = (error: string): Record<string, unknown> =>
  error === 'invalid_request' ? { error, error_description: expect.stringMatching(/^[\x20-\x7e]+$/) } : { error };
