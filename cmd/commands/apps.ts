import { cliActor } from '../../src/platform/audit/audit';
import { Option, type Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const COLUMNS = ['id', 'name', 'platform', 'status', 'bundleId', 'appKey', 'environmentId', 'createdAt'];

/**
 * `engage apps …` (issue 24 point 2): the same environment service as the administration API's
 * `/environments/{id}/apps` routes, on the database; audited with the OS user. Provider
 * credentials: `set-apns`, `set-fcm`, `credentials`, `check-credentials`, `delete-credentials`
 * (commands/messaging.ts).
 */
export function registerApps(program: Command): void {
  const apps = program.command('apps').description('manage platform apps; each has a public app key (svc_app_...) for SDK bootstrap');

  withCommon(apps.command('create').description('create an app and print its id and public app key'))
    .requiredOption('--environment <env>', 'environment id or name')
    .addOption(new Option('--platform <platform>', 'platform').choices(['IOS', 'ANDROID']).makeOptionMandatory())
    .requiredOption('--name <name>', 'name, unique in the environment')
    .option('--bundle-id <id>', 'the iOS bundle id or Android package name')
    .action(
      action(async (opts: CommonOptions & { environment: string; platform: string; name: string; bundleId?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          output(json, await services.engage.environments.createApp({ environment: opts.environment, platform: opts.platform, name: opts.name, bundleId: opts.bundleId }, cliActor()), COLUMNS);
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

  withCommon(apps.command('show').description('show an app'))
    .argument('<app>', 'app id, public app key or name')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (ref: string, opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.showApp(opts.environment, ref), COLUMNS));
      }),
    );

  withCommon(apps.command('update').description("change an app's name or bundle id"))
    .argument('<app>', 'app id, public app key or name')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--name <name>', 'the new name, unique in the environment')
    .option('--bundle-id <id>', 'the iOS bundle id or Android package name')
    .option('--no-bundle-id', 'clear the bundle id')
    .action(
      action(async (ref: string, opts: CommonOptions & { environment: string; name?: string; bundleId?: string | false }) => {
        const change = { name: opts.name, bundleId: opts.bundleId === false ? null : opts.bundleId };
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.updateApp(opts.environment, ref, change, cliActor()), COLUMNS));
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

  // Provider credentials, read back and checked (set with set-apns and set-fcm, commands/messaging.ts).
  const CREDENTIAL_COLUMNS = ['provider', 'keyId', 'teamId', 'topic', 'sandbox', 'projectId', 'clientEmail', 'fingerprint', 'updatedAt'];
  const provider = () => new Option('--provider <provider>', 'the push provider').choices(['APNS', 'FCM']).argParser((v) => v.toUpperCase() as 'APNS' | 'FCM');
  withCommon(apps.command('credentials').description("an app's provider credentials as metadata (key id, team id, topic, client email, fingerprint; never a key)"))
    .argument('<app>', 'app id or public app key (or name with --environment)')
    .option('--environment <env>', 'environment id or name, to name the app by its name')
    .action(
      action(async (app: string, opts: CommonOptions & { environment?: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.messaging.credentials.metadata({ app, environment: opts.environment }), CREDENTIAL_COLUMNS));
      }),
    );
  withCommon(apps.command('check-credentials').description('ask APNs or FCM whether it accepts the credentials, without sending a push'))
    .argument('<app>', 'app id or public app key (or name with --environment)')
    .option('--environment <env>', 'environment id or name, to name the app by its name')
    .addOption(provider().makeOptionMandatory())
    .action(
      action(async (app: string, opts: CommonOptions & { environment?: string; provider: 'APNS' | 'FCM' }) => {
        await withServices(opts, async ({ services, json }) => {
          const r = await services.engage.messaging.credentials.check({ app, environment: opts.environment, provider: opts.provider });
          if (json) output(true, r);
          else output(false, { provider: r.provider, ok: r.check.ok, status: r.check.status ?? '', reason: r.check.reason ?? '', fingerprint: r.fingerprint, checkedAt: r.check.checkedAt });
          // A refusal is a failed command (exit status 1): scripts can rely on it.
          if (!r.check.ok) process.exitCode = 1;
        });
      }),
    );
  withCommon(apps.command('delete-credentials').description("delete an app's credentials of one provider (its pushes to it fail until new ones are set)"))
    .argument('<app>', 'app id or public app key (or name with --environment)')
    .option('--environment <env>', 'environment id or name, to name the app by its name')
    .addOption(provider().makeOptionMandatory())
    .action(
      action(async (app: string, opts: CommonOptions & { environment?: string; provider: 'APNS' | 'FCM' }) => {
        await withServices(opts, async ({ services, json }) => {
          await services.engage.messaging.credentials.remove({ app, environment: opts.environment, provider: opts.provider }, cliActor());
          output(json, { deleted: true, app, provider: opts.provider });
        });
      }),
    );

  withCommon(apps.command('delete').description('delete an app without installations or provider credentials (disable it otherwise)'))
    .argument('<app>', 'app id, public app key or name')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (ref: string, opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => {
          const app = await services.engage.environments.deleteApp(opts.environment, ref, cliActor());
          output(json, { deleted: true, id: app.id, name: app.name });
        });
      }),
    );
}
