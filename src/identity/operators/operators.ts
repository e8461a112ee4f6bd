import type { AuditActor } from '../../platform/audit/audit';
import { DomainError } from '../../platform/errors';
import { OPERATOR_PERMISSIONS } from '../directory/permissions';
import type { DirectoryService } from '../directory/service';
import type { TenantService } from '../tenants/service';
import type { UserService } from '../users/service';

export interface OperatorResult {
  id: string;
  subject: string;
  email: string;
  /** Whether the user was created now (false: the control tenant had them). */
  created: boolean;
  passwordSet: boolean;
  permissions: string[];
  /** Whether the administrator role was assigned now (false: they held it). */
  assigned: boolean;
}

/**
 * An operator is a user of the control tenant holding every administration permission through
 * the TENANT role `administrator` (issue 11 point 5): made or completed idempotently. A new
 * operator needs a password, since they sign in through the browser sign-in page (`engage
 * login`); for an existing one, a password given replaces theirs (recovery on the database).
 */
export async function ensureOperator(
  deps: { tenants: TenantService; users: UserService; directory: DirectoryService },
  input: { email: string; password?: string },
  actor: AuditActor,
): Promise<OperatorResult> {
  const control = await deps.tenants.control();
  if (!control) throw new DomainError('not_found', 'unknown_tenant', 'the control tenant does not exist');
  let user = await deps.users.findByEmail(control.id, input.email);
  const created = !user;
  if (!user) {
    if (input.password === undefined) throw new DomainError('invalid', 'invalid_request', 'a new operator needs a password to sign in with: give it on standard input with --password-stdin');
    await deps.users.create(control.id, { email: input.email, emailVerified: true, password: input.password }, actor);
    user = (await deps.users.findByEmail(control.id, input.email))!;
  } else if (input.password !== undefined) {
    await deps.users.changePassword(control.id, user.id, input.password);
  }
  const permissions = [...OPERATOR_PERMISSIONS];
  const granted = await deps.directory.grantAdministrator(control.id, user.subject, permissions, actor);
  return { id: user.id, subject: user.subject, email: user.email, created, passwordSet: input.password !== undefined, permissions, assigned: granted.assigned };
}
