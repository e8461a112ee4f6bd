import type { Command } from 'commander';
import { action, output, readStdin, withCommon, withServices, type CommonOptions } from '../cli';
import { registerUserMfa } from './mfa';
import { outputPage, pageRequestOf, withPaging } from '../paging';
import { cliActor } from '../../src/identity/audit';
import { UserErrors } from '../../src/identity/users/errors';
import type { Services } from '../../src/services';

type UserOpts = CommonOptions & { tenant: string; user: string };

/** The user named by id or email (the management API addresses users by id). */
async function userOf(services: Services, tenantId: string, ref: string) {
  const u = /^[0-9a-f-]{36}$/i.test(ref) ? await services.users.findById(tenantId, ref.toLowerCase()) : await services.users.findByEmail(tenantId, ref);
  if (!u) throw UserErrors.unknown(ref);
  return u;
}
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
          output(json, await services.users.create(tenantId, { email: opts.email, emailVerified: !!opts.verified, password }, cliActor()), COLUMNS);
        });
      }),
    );

  withPaging(withCommon(users.command('list').description('list users, oldest first, a page at a time')))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--email <text>', 'only users whose email address contains this text (case-insensitive; a whole address or @acme.test)')
    .action(
      action(async (opts: CommonOptions & { tenant: string; email?: string; page: number; size: number }) => {
        await withServices(opts, async ({ services, json }) => {
          const { page, size } = pageRequestOf(opts);
          const found = await services.users.page((await services.tenants.get(opts.tenant)).id, page, size, { emailContains: opts.email });
          outputPage(json, { ...found, page }, COLUMNS);
        });
      }),
    );

  const target = (cmd: Command) => cmd.requiredOption('--tenant <tenant>', 'slug or id').requiredOption('--user <user>', 'user id or email address');

  target(withCommon(users.command('show').description('show one user'))).action(
    action(async (opts: UserOpts) => {
      await withServices(opts, async ({ services, json }) => {
        const tenantId = (await services.tenants.get(opts.tenant)).id;
        output(json, await services.users.get(tenantId, (await userOf(services, tenantId, opts.user)).id), COLUMNS);
      });
    }),
  );

  target(withCommon(users.command('update').description("change a user's email or its verified mark (the management API's PUT)")))
    .option('--email <email>', 'new email address (not verified unless --verified is given too)')
    .option('--verified', 'mark the email address verified')
    .option('--unverified', 'mark the email address not verified')
    .action(
      action(async (opts: UserOpts & { email?: string; verified?: boolean; unverified?: boolean }) => {
        if (opts.verified && opts.unverified) throw new Error('give at most one of --verified or --unverified');
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const u = await userOf(services, tenantId, opts.user);
          // Neither flag: unchanged, or false when the email changes (the service decides, as for the PUT).
          const emailVerified = opts.verified ? true : opts.unverified ? false : undefined;
          output(json, await services.users.update(tenantId, u.id, { email: opts.email ?? u.email, emailVerified, status: u.status }, cliActor()), COLUMNS);
        });
      }),
    );

  for (const [name, status, what] of [
    ['disable', 'DISABLED', 'disable a user: no sign-in, live tokens inactive (nothing revoked: enabling brings back those not expired)'],
    ['enable', 'ACTIVE', 'enable a user again'],
  ] as const) {
    target(withCommon(users.command(name).description(what))).action(
      action(async (opts: UserOpts) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          output(json, await services.users.setStatus(tenantId, (await userOf(services, tenantId, opts.user)).id, status, cliActor()), COLUMNS);
        });
      }),
    );
  }

  withCommon(users.command('set-password').description("set a user's password (the registration policy); their sessions, grants and refresh tokens end"))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--user <user>', 'user id or email address')
    .option('--email <email>', 'email address of the user (instead of --user)')
    .requiredOption('--password-stdin', 'read the new password from standard input (one line); never from argv')
    .addHelpText('after', '\nExample:\n  printf %s "$NEW_PASSWORD" | engage users set-password --tenant acme --email ada@example.com --password-stdin')
    .action(
      action(async (opts: CommonOptions & { tenant: string; user?: string; email?: string }) => {
        if (!opts.user === !opts.email) throw new Error('give exactly one of --user or --email');
        // Read before opening the store: the password never appears in argv or the environment.
        const password = (await readStdin()).replace(/\r?\n$/, '');
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const u = await userOf(services, tenantId, (opts.user ?? opts.email)!);
          output(json, await services.users.setPassword(tenantId, u.id, password, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(users.command('send-recovery-mail').description('mail a user a password recovery code with a link to the hosted recovery page (the serving process sends it)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--user <user>', 'user id or email address')
    .option('--email <email>', 'email address of the user (instead of --user)')
    .action(
      action(async (opts: CommonOptions & { tenant: string; user?: string; email?: string }) => {
        if (!opts.user === !opts.email) throw new Error('give exactly one of --user or --email');
        await withServices(opts, async ({ services, json }) => {
          const tenant = await services.tenants.get(opts.tenant);
          const u = await userOf(services, tenant.id, (opts.user ?? opts.email)!);
          // Queued in the outbox: `engage serve` sends it (the CLI needs the same --smtp-url to queue it at all).
          await services.native.sendRecoveryMail({ tenant, issuer: services.tenants.issuerOf(tenant) }, u.id, { actor: cliActor() });
          output(json, { id: u.id, email: u.email, recoveryMail: 'queued' }, ['id', 'email', 'recoveryMail']);
        });
      }),
    );

  target(withCommon(users.command('delete').description("delete a user, ending their sessions, grants and tokens at once"))).action(
    action(async (opts: UserOpts) => {
      await withServices(opts, async ({ services, json }) => {
        const tenantId = (await services.tenants.get(opts.tenant)).id;
        const u = await userOf(services, tenantId, opts.user);
        await services.users.delete(tenantId, u.id, cliActor());
        output(json, { id: u.id, email: u.email, deleted: true }, ['id', 'email', 'deleted']);
      });
    }),
  );

  registerUserMfa(users);
  registerUserTransfer(users);
}
