import { cliActor } from '../../src/platform/audit/audit';
import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { registerAccessKeys } from './access-keys';
import { registerApps } from './apps';
import { registerInstallations } from './installations';
import { registerProfiles } from './profiles';
import { registerMessaging } from './messaging';

const COLUMNS = ['id', 'name', 'createdAt', 'identityTenantId'];

export function registerEnvironments(program: Command): void {
  const envs = program.command('environments').description('manage engagement environments (each owns apps, access keys and profiles)');

  withCommon(envs.command('create').description('create an environment'))
    .requiredOption('--name <name>', 'unique name, 1 to 100 characters')
    .option('--identity-tenant <slug>', 'the identity tenant whose user subjects are its external ids: a sign-in through it binds the installation')
    .action(
      action(async (opts: CommonOptions & { name: string; identityTenant?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          // The tenant first: an unknown slug creates nothing.
          const tenantId = opts.identityTenant === undefined ? undefined : (await services.tenants.get(opts.identityTenant)).id;
          const created = await services.engage.environments.create({ name: opts.name }, cliActor());
          output(json, tenantId === undefined ? created : await services.engage.identityLink.set(created.id, tenantId, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(envs.command('update').description("change an environment's identity tenant").argument('<environment>', 'id or name'))
    .option('--identity-tenant <slug>', 'the identity tenant whose user subjects are its external ids')
    .option('--no-identity-tenant', 'name no identity tenant (external ids are opaque strings of your backend)')
    .action(
      action(async (environment: string, opts: CommonOptions & { identityTenant?: string | false }) => {
        await withServices(opts, async ({ services, json }) => {
          if (opts.identityTenant === undefined) throw new Error('give --identity-tenant <slug> or --no-identity-tenant');
          const tenantId = opts.identityTenant === false ? null : (await services.tenants.get(opts.identityTenant)).id;
          output(json, await services.engage.identityLink.set(environment, tenantId, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(envs.command('show').description('show an environment').argument('<environment>', 'id or name')).action(
    action(async (environment: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.resolve(environment), COLUMNS));
    }),
  );

  withCommon(envs.command('list').description('list environments')).action(
    action(async (opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.list(), COLUMNS));
    }),
  );
}

/** Every engagement command (environments, apps, access keys, inspection): one line in cmd/engage.ts. */
export function registerEngageCommands(program: Command): void {
  registerEnvironments(program);
  registerApps(program);
  registerAccessKeys(program);
  registerInstallations(program);
  registerProfiles(program);
  registerMessaging(program);
}
