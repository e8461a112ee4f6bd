import { DomainError } from '../../platform/errors';
import { AdministrationErrors } from '../../platform/http/admin-errors';

/** Management API failures of spec 03 that no identity service raises. */
export const AdminErrors = {
  ...AdministrationErrors,
  /**
   * The user of the control tenant holds a permission the operator does not (issue 21): spec
   * 03's access_denied, "operator lacks the matching live directory permission".
   */
  /**
   * A directory write of the control tenant through the management API (issue 25): its roles
   * and assignments are the operators' permissions, changed only by `engage operators` and
   * `engage apply`, which keep the rank rule (issue 21).
   */
  controlDirectory: () =>
    new DomainError('forbidden', 'access_denied', "the control tenant's directory holds the operators' permissions: change them with engage operators grant|revoke or engage apply"),
  outranked: (key: string) => new DomainError('forbidden', 'access_denied', `the user holds permission ${key}, which you do not`),
};
