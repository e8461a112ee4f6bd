import { DomainError } from '../../platform/errors';

/**
 * The administration API's not-found answers for inspection and erasure (issue 24): the same
 * for an id that never existed, one of another environment, and one already erased.
 */
export const InspectionErrors = {
  unknownInstallation: () => new DomainError('not_found', 'unknown_installation', 'no such installation in this environment'),
  unknownProfile: () => new DomainError('not_found', 'unknown_profile', 'no such profile in this environment'),
};
