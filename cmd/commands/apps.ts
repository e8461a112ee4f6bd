import { cliActor } from '../../src/platform/audit/audit';
import { Option, type Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const COLUMNS = ['id', 'name', 'platform', 'status', 'appKey', 'environmentId', 'createdAt'];

export function registerApps(program: Command): void {
  const apps = program.command('apps').description('manage platform apps; each has a public app key (svc_app_...) for SDK bootstrap');

  withCommon(apps.command('create').description('create an app and print its id and public app key'))
    .requiredOption('--environment <env>', 'environment id or name')
    .addOption(new Option('--platform <platform>', 'platform').choices(['IOS', 'ANDROID']).makeOptionMandatory())
    .requiredOption('--name <name>', 'name, unique in the environment')
    .action(
      action(async (opts: CommonOptions & { environment: string; platform: string; name: string }) => {
        await withServices(opts, async ({ services, json }) => {
          output(json, await services.engage.environments.createApp({ environment: opts.environment, platform: opts.platform, name: opts.name }, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(apps.command('list').description('list the apps of an environment'))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.listApps(opts.environment), COLUMNS));
      }),
    );

  for (const [name, verb] of [
    ['disable', 'disableApp'],
    ['enable', 'enableApp'],
  ] as const) {
    withCommon(apps.command(name).description(`${name} an app (a disabled app bootstraps nothing and its installations get 401)`))
      .argument('<app>', 'app id or public app key (or name with --environment)')
      .option('--environment <env>', 'environment id or name, to name the app by its name')
      .action(
        action(async (ref: string, opts: CommonOptions & { environment?: string }) => {
          await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments[verb](ref, opts.environment, cliActor()), COLUMNS));
        }),
      );
  }
}
