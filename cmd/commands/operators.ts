import type { Command } from 'commander';
import { action, output, readStdin, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/platform/audit/audit';
import { ensureOperator, grantPermissions } from '../../src/identity/operators/operators';

export function registerOperators(program: Command): void {
  const operators = program.command('operators').description('operators: users of the control tenant who administer the environment');

  withCommon(operators.command('create').description('make a control-tenant user an operator with every administration permission (created when absent)'))
    .requiredOption('--email <email>', 'email address (the sign-in name)')
    .option('--password-stdin', 'read the password from standard input (one line); required for a new operator, replaces an existing one')
    .action(
      action(async (opts: CommonOptions & { email: string; passwordStdin?: boolean }) => {
        // Read before opening the store: the password never appears in argv or the environment.
        const password = opts.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
        await withServices(opts, async ({ services, json }) => {
          const r = await ensureOperator(services, { email: opts.email, password }, cliActor());
          if (json) output(true, r);
          else
            process.stdout.write(
              `${r.created ? 'Created operator' : 'Operator'} ${r.email} (subject ${r.subject})${r.assigned ? ', now an administrator' : ', already an administrator'}` +
                `${r.passwordSet && !r.created ? ', password replaced' : ''}.\nSign in with: engage login --url <server URL>\n`,
            );
        });
      }),
    );

  for (const verb of ['grant', 'revoke'] as const) {
    withCommon(
      operators
        .command(verb)
        .description(
          verb === 'grant'
            ? 'grant an operator (a control-tenant user) permissions, e.g. one narrowed to an engagement environment (engage.admin.manage:staging); each permission and its role are made when absent'
            : 'take permissions from an operator, those engage operators create gave included (from the next request, tokens included)',
        ),
    )
      .requiredOption('--email <email>', "the operator's email address")
      .requiredOption('--permission <key...>', 'permission keys (engage.admin.read, engage.admin.manage:prod, identity.admin.read, ...)')
      .action(
        action(async (opts: CommonOptions & { email: string; permission: string[] }) => {
          await withServices(opts, async ({ services, json }) => {
            const r = await grantPermissions(services, { email: opts.email, permissions: opts.permission, revoke: verb === 'revoke' }, cliActor());
            if (json) output(true, r);
            else for (const p of r.permissions) process.stdout.write(`${p.key}: ${p.changed ? (verb === 'grant' ? 'granted' : 'revoked') : verb === 'grant' ? 'held already' : 'not held'}\n`);
          });
        }),
      );
  }
}
