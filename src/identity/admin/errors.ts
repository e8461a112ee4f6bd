import { DomainError } from '../../platform/errors';
import { AdministrationErrors } from '../../platform/http/admin-errors';

/** Management API failures of spec 03 that no identity service raises. */
export const AdminErrors = {
  ...AdministrationErrors,
  /**
   * The user of the control tenant holds a permission the operator does not (issue 21): spec
   * 03's access_denied, "operator lacks the matching live directory permission".
   */
  outranked: (key: string) => new DomainError('forbidden', 'access_denied', `the user holds permission ${key}, which you do not`),
};
