import { AdministrationErrors } from '../../platform/http/admin-errors';

/** The engagement administration API's own failures (issue 24): the management API's, for the same situations. */
export const EngageAdminErrors = AdministrationErrors;
