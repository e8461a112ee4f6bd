import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';

const COLUMNS = ['name', 'issuer', 'audiences', 'createdAt'];
const collect = (v: string, all: string[] = []) => [...all, v];

/** `engage providers add|list|remove`: the OpenID Connect issuers a tenant accepts ID tokens from (spec 02 native social sign-in). */
export function registerProviders(program: Command): void {
  const providers = program.command('providers').description("manage a tenant's social identity providers (OpenID Connect issuers)");

  withCommon(providers.command('add').description('accept ID tokens of an OpenID Connect issuer (keys from its discovery document)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--name <name>', 'the name clients send as `provider` (e.g. google)')
    .requiredOption('--issuer <url>', 'the issuer URL, exactly as in its ID tokens')
    .requiredOption('--audience <id>', 'an accepted `aud` (the client id at that issuer); repeat for several', collect)
    .action(
      action(async (opts: CommonOptions & { tenant: string; name: string; issuer: string; audience: string[] }) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          output(json, await services.providers.add(tenantId, { name: opts.name, issuer: opts.issuer, audiences: opts.audience }, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(providers.command('list').description("list the tenant's providers"))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .action(
      action(async (opts: CommonOptions & { tenant: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.providers.list((await services.tenants.get(opts.tenant)).id), COLUMNS));
      }),
    );

  withCommon(providers.command('remove').description('stop accepting a provider (linked identities are kept and work again if it is added back)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--name <name>', 'the provider name')
    .action(
      action(async (opts: CommonOptions & { tenant: string; name: string }) => {
        await withServices(opts, async ({ services, json }) => {
          await services.providers.remove((await services.tenants.get(opts.tenant)).id, opts.name, cliActor());
          output(json, { name: opts.name, removed: true }, ['name', 'removed']);
        });
      }),
    );
}
