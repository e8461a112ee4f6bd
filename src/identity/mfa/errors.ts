import { DomainError } from '../../platform/errors';

export const MfaErrors = {
  alreadyEnrolled: () => new DomainError('conflict', 'mfa_already_enrolled', 'an authenticator is already active; remove it first'),
  notEnrolled: () => new DomainError('conflict', 'mfa_not_enrolled', 'no authenticator is active for this user'),
  noPendingEnrolment: () => new DomainError('conflict', 'mfa_no_pending_enrolment', 'start enrolling an authenticator first'),
  invalidCode: () => new DomainError('invalid', 'invalid_code', 'the code is not correct'),
};
