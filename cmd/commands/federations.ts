import type { Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { parsePageRequest } from '../../src/platform/http/pagination';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const COLUMNS = ['sourceTenantId', 'targetTenantId', 'sourceIssuer', 'targetIssuer', 'status', 'createdAt'];
type Pair = CommonOptions & { source: string; target: string };

/**
 * `engage federations create|list|delete` (issue 11 point 3): the source tenant's users sign
 * in at the target issuer through the source issuer ("Sign in with <source>" on the target's
 * sign-in page). On the database; audit actor the operating-system user.
 */
export function registerFederations(program: Command): void {
  const federations = program.command('federations').description('let one tenant\'s users sign in at another tenant (OpenID Connect brokering)');

  withCommon(federations.command('create').description("federate: the source tenant's users may sign in at the target through the source"))
    .requiredOption('--source <tenant>', 'source tenant, slug or id')
    .requiredOption('--target <tenant>', 'target tenant, slug or id')
    .action(
      action(async (opts: Pair) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.federations.create(opts.source, opts.target, cliActor()), COLUMNS));
      }),
    );

  withCommon(federations.command('list').description('list federations'))
    .option('--page <n>', 'zero-based page (default 0)')
    .option('--size <n>', 'page size, 1 to 200 (default 50)')
    .action(
      action(async (opts: CommonOptions & { page?: string; size?: string }) => {
        const q = new URLSearchParams();
        if (opts.page !== undefined) q.set('page', opts.page);
        if (opts.size !== undefined) q.set('size', opts.size);
        const page = parsePageRequest(q);
        await withServices(opts, async ({ services, json }) => {
          const result = await services.federations.list(page);
          output(json, json ? result : result.items, COLUMNS);
        });
      }),
    );

  withCommon(federations.command('delete').description('delete a federation: sign-ins through the source stop at once (links to accounts are kept)'))
    .requiredOption('--source <tenant>', 'source tenant, slug or id')
    .requiredOption('--target <tenant>', 'target tenant, slug or id')
    .action(
      action(async (opts: Pair) => {
        await withServices(opts, async ({ services, json }) => {
          await services.federations.remove(opts.source, opts.target, cliActor());
          output(json, { source: opts.source, target: opts.target, deleted: true }, ['source', 'target', 'deleted']);
        });
      }),
    );
}
