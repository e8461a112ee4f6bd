import type { Command } from 'commander';
import { action, output, readStdin, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/platform/audit/audit';
import { ensureOperator } from '../../src/identity/operators/operators';

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
}
