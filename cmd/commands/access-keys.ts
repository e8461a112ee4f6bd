import { cliActor } from '../../src/platform/audit/audit';
import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const COLUMNS = ['id', 'name', 'status', 'appIds', 'environmentId', 'createdAt', 'rotatedAt', 'revokedAt'];

/** Prints a freshly minted key once; the table view puts it on its own line so it is easy to copy. */
function printWithKey(json: boolean, view: { key: string }): void {
  if (json) return output(true, view);
  output(false, view, COLUMNS);
  process.stdout.write(`\naccess key (shown once, store it now): ${view.key}\n`);
}

export function registerAccessKeys(program: Command): void {
  const keys = program.command('access-keys').description('manage environment access keys (server-to-server; never ship them in an app)');

  withCommon(keys.command('create').description('create an access key restricted to some apps; the key is printed once'))
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--app <app...>', 'app ids or names the key may act for')
    .option('--name <name>', 'a label')
    .action(
      action(async (opts: CommonOptions & { environment: string; app: string[]; name?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          printWithKey(json, await services.engage.environments.createAccessKey({ environment: opts.environment, apps: opts.app, name: opts.name }, cliActor()));
        });
      }),
    );

  withCommon(keys.command('list').description('list access keys (never the keys themselves)'))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.listAccessKeys(opts.environment), COLUMNS));
      }),
    );

  withCommon(keys.command('revoke').description('revoke an access key at once').argument('<id>', 'access key id')).action(
    action(async (id: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.revokeAccessKey(id, cliActor()), COLUMNS));
    }),
  );

  withCommon(keys.command('rotate').description('replace the secret of an access key (same id and apps); the old secret stops working').argument('<id>', 'access key id')).action(
    action(async (id: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => printWithKey(json, await services.engage.environments.rotateAccessKey(id, cliActor())));
    }),
  );
}
