import { DomainError } from '../../platform/errors';

/**
 * Spec 03 directory errors. Every duplicate or missing dependency is one code,
 * `directory_operation_rejected` (409); the message names the cause for logs and the CLI.
 * An edit of what `engage apply` owns is `configuration_managed` (409).
 */
export const DirectoryErrors = {
  rejected: (why: string) => new DomainError('conflict', 'directory_operation_rejected', why),
  invalid: (why: string) => new DomainError('invalid', 'invalid_request', why),
  /**
   * `engage apply` owns the role (issue 21): the management API's spec-03 code for an object
   * bootstrap configuration owns, so both APIs answer alike (docs/decisions.md).
   */
  /**
   * A change of the control tenant's directory by the directory API, the management API or
   * `engage directory` (issue 25): its roles and assignments are the operators' permissions,
   * changed only by `engage operators grant|revoke` and `engage apply`, which keep the rank rule
   * of issue 21.
   */
  controlTenant: () =>
    new DomainError('forbidden', 'access_denied', "the control tenant's directory holds the operators' permissions: change them with engage operators grant|revoke or engage apply"),
  configurationManaged: (what: string) => new DomainError('conflict', 'configuration_managed', `bootstrap configuration owns ${what}: change it in the file engage apply reads`),
};
