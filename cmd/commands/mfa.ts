import type { Command } from 'commander';
import { UserErrors } from '../../src/identity/users/errors';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';

type Opts = CommonOptions & { tenant: string; email: string };

const COLUMNS = ['email', 'enrolled', 'enrolledAt', 'pending', 'recoveryCodesLeft'];

/** `engage users mfa show|reset`: what an operator may know of a user's second factor, never a secret. */
export function registerUserMfa(users: Command): void {
  const mfa = users.command('mfa').description("a user's second factor (TOTP authenticator and recovery codes)");
  const target = (cmd: Command) => cmd.requiredOption('--tenant <tenant>', 'slug or id').requiredOption('--email <email>', 'the user\'s email address');

  target(withCommon(mfa.command('show').description('whether an authenticator is enrolled, since when, and how many recovery codes are left'))).action(
    action(async (opts: Opts) => {
      await withServices(opts, async ({ services, json }) => {
        const tenantId = (await services.tenants.get(opts.tenant)).id;
        const user = await services.users.findByEmail(tenantId, opts.email);
        if (!user) throw UserErrors.unknown(opts.email);
        output(json, { email: user.email, ...(await services.mfa.status(tenantId, user.id)) }, COLUMNS);
      });
    }),
  );

  target(withCommon(mfa.command('reset').description('remove the authenticator and the recovery codes (the user signs in with the password alone and may enrol again)'))).action(
    action(async (opts: Opts) => {
      await withServices(opts, async ({ services, json }) => {
        const tenantId = (await services.tenants.get(opts.tenant)).id;
        const user = await services.users.findByEmail(tenantId, opts.email);
        if (!user) throw UserErrors.unknown(opts.email);
        const removed = await services.mfa.remove(tenantId, user.id, cliActor());
        output(json, { email: user.email, removed }, ['email', 'removed']);
      });
    }),
  );
}
