import type { Command } from 'commander';
import { action, output, readStdin, withCommon, withServices, type CommonOptions } from '../cli';
import { registerUserMfa } from './mfa';
import { registerUserTransfer } from './users-transfer';

const COLUMNS = ['id', 'subject', 'email', 'emailVerified', 'status', 'createdAt'];

export function registerUsers(program: Command): void {
  const users = program.command('users').description("manage a tenant's users");

  withCommon(users.command('create').description('create a user (password hashed with argon2id)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--email <email>', 'email address')
    .option('--verified', 'mark the email address verified')
    .option('--password-stdin', 'read the password from standard input (one line)')
    .action(
      action(async (opts: CommonOptions & { tenant: string; email: string; verified?: boolean; passwordStdin?: boolean }) => {
        // Read before opening the store: the password never appears in argv or the environment.
        const password = opts.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          output(json, await services.users.create(tenantId, { email: opts.email, emailVerified: !!opts.verified, password }), COLUMNS);
        });
      }),
    );

  withCommon(users.command('list').description('list users'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .action(
      action(async (opts: CommonOptions & { tenant: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.users.list((await services.tenants.get(opts.tenant)).id), COLUMNS));
      }),
    );

  registerUserMfa(users);
  registerUserTransfer(users);
}
