import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { splitScopes } from './clients';

const COLUMNS = ['uri', 'audience', 'status', 'scopes'];

export function registerResources(program: Command): void {
  const resources = program.command('resources').description("manage a tenant's protected resources (APIs)");

  withCommon(resources.command('create').description('register a resource (RFC 8707 resource indicator)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--uri <uri>', 'resource URI clients request')
    .requiredOption('--audience <aud>', 'aud value the API expects in access tokens')
    .requiredOption('--scope <scope...>', 'scopes the resource offers')
    .action(
      action(async (opts: CommonOptions & { tenant: string; uri: string; audience: string; scope: string[] }) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          output(json, await services.resources.create(tenantId, { uri: opts.uri, audience: opts.audience, scopes: splitScopes(opts.scope) }), COLUMNS);
        });
      }),
    );

  withCommon(resources.command('list').description('list resources'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .action(
      action(async (opts: CommonOptions & { tenant: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.resources.list((await services.tenants.get(opts.tenant)).id), COLUMNS));
      }),
    );
}
