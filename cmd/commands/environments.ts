import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { registerAccessKeys } from './access-keys';
import { registerApps } from './apps';
import { registerInstallations } from './installations';
import { registerProfiles } from './profiles';
import { registerMessaging } from './messaging';

const COLUMNS = ['id', 'name', 'createdAt'];

export function registerEnvironments(program: Command): void {
  const envs = program.command('environments').description('manage engagement environments (each owns apps, access keys and profiles)');

  withCommon(envs.command('create').description('create an environment'))
    .requiredOption('--name <name>', 'unique name, 1 to 100 characters')
    .action(
      action(async (opts: CommonOptions & { name: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.create({ name: opts.name }), COLUMNS));
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
