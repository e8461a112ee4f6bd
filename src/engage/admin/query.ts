import { EngageAdminErrors } from './errors';

/**
 * A query parameter's reader for the engagement administration routes' declarations: the value
 * given at most once and not empty (400 invalid_request naming it otherwise), or undefined.
 */
export const oneQuery = (name: string) => (v: string[]) => {
  if (v.length === 0) return undefined;
  if (v.length > 1 || v[0] === '') throw EngageAdminErrors.invalid(`${name}: give it once, not empty`);
  return v[0];
};
