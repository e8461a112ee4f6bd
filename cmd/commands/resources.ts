import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { splitScopes } from './clients';
import { cliActor } from '../../src/identity/audit';
import { ResourceErrors } from '../../src/identity/resources/errors';

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
          output(json, await services.resources.create(tenantId, { uri: opts.uri, audience: opts.audience, scopes: splitScopes(opts.scope) }, cliActor()), COLUMNS);
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

  withCommon(resources.command('update').description("change a resource's audience or scopes (what is not given stays)"))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--uri <uri>', 'the resource URI')
    .option('--audience <aud>', 'aud value the API expects in access tokens')
    .option('--scope <scope...>', 'scopes the resource offers; replaces the list')
    .action(
      action(async (opts: CommonOptions & { tenant: string; uri: string; audience?: string; scope?: string[] }) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          const current = await services.resources.findByUri(tenantId, opts.uri);
          if (!current) throw ResourceErrors.unknown(opts.uri);
          const input = { audience: opts.audience ?? current.audience, scopes: opts.scope ? splitScopes(opts.scope) : current.scopes };
          output(json, await services.resources.update(tenantId, opts.uri, input, cliActor()), COLUMNS);
        });
      }),
    );

  for (const [name, status, what] of [
    ['disable', 'DISABLED', 'disable a resource: it can no longer be requested and its credentials stop authenticating'],
    ['enable', 'ACTIVE', 'enable a resource again'],
  ] as const) {
    withCommon(resources.command(name).description(what))
      .requiredOption('--tenant <tenant>', 'slug or id')
      .requiredOption('--uri <uri>', 'the resource URI')
      .action(
        action(async (opts: CommonOptions & { tenant: string; uri: string }) => {
          await withServices(opts, async ({ services, json }) => {
            output(json, await services.resources.setStatus((await services.tenants.get(opts.tenant)).id, opts.uri, status, cliActor()), COLUMNS);
          });
        }),
      );
  }
}
