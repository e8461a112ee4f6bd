import { cliActor } from '../../src/platform/audit/audit';
import { InvalidArgumentError, type Command } from 'commander';
import { listJsonSchema } from '../../src/engage/preferences/schemas';
import { pushChannelJsonSchema } from '../../src/engage/push-channels/schemas';
import { outputPage, pageRequestOf, withPaging } from '../paging';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { readJsonFile } from './messaging';

const LIST_COLUMNS = ['key', 'displayName', 'channels', 'defaultSubscribed', 'critical', 'revision', 'configurationManaged', 'updatedAt'];
const CHANNEL_COLUMNS = ['key', 'kind', 'name', 'importance', 'actions', 'revision', 'configurationManaged', 'updatedAt'];

type Expected = { expectedRevision?: number };
type EnvOpts = CommonOptions & { environment: string };
type AppOpts = EnvOpts & { app: string };
type FileOpts = CommonOptions & Expected & { environment?: string; app?: string; file?: string; printSchema?: boolean };

/** `--expected-revision N`: the API's `If-Match: "N"` (as `engage flags update --expected-version`). */
const withExpected = (cmd: Command, code: string) =>
  cmd.option('--expected-revision <n>', `apply only while it is at this revision, as show prints it (else: ${code})`, (value: string): number => {
    if (!/^[1-9][0-9]{0,14}$/.test(value)) throw new InvalidArgumentError('--expected-revision must be a positive integer');
    return Number(value);
  });
const expected = (o: Expected) => (o.expectedRevision !== undefined ? { expectedRevision: o.expectedRevision } : {});

const LIST_HELP = `
The list file: docs/preferences.md. Its JSON Schema, the one the file is checked with:
engage lists create --print-schema`;
const CHANNEL_HELP = `
The channel file: docs/preferences.md (an ANDROID app takes ANDROID_CHANNEL, an IOS app
IOS_CATEGORY). Its JSON Schema: engage push-channels create --print-schema`;

const printSchema = (schema: unknown) => void process.stdout.write(JSON.stringify(schema, null, 2) + '\n');

/** The options a file command needs, checked here: commander would refuse --print-schema alone if they were required options. */
function need<K extends 'environment' | 'app' | 'file'>(opts: FileOpts, names: readonly K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const n of names) {
    const v = opts[n];
    if (!v) throw new Error(`required option '--${n} <${n === 'environment' ? 'env' : n}>' not specified`);
    out[n] = v;
  }
  return out;
}

/** `engage lists …` (issue 26 PREFERENCES): subscription lists of an environment, the same service as the administration API. */
export function registerLists(program: Command): void {
  const lists = program.command('lists').description('subscription lists of an environment (JSON files): what a preference centre shows and sends honour');
  const withFile = (cmd: Command) =>
    cmd
      .option('--environment <env>', 'environment id or name (required)')
      .option('--file <file>', 'list JSON file (required; format: docs/preferences.md)')
      .option('--print-schema', "print the list file's JSON Schema and exit")
      .addHelpText('after', LIST_HELP);

  withFile(withCommon(lists.command('create').description('create a subscription list from a JSON file (a deleted key is created anew)'))).action(
    action(async (opts: FileOpts) => {
      if (opts.printSchema) return printSchema(listJsonSchema());
      const { environment, file: path } = need(opts, ['environment', 'file']);
      const file = readJsonFile(path, 'list file');
      await withServices(opts, async ({ services, json }) => output(json, await services.engage.lists.create({ environment, file }, cliActor()), LIST_COLUMNS));
    }),
  );

  withExpected(withFile(withCommon(lists.command('update').description('replace a subscription list’s definition from a JSON file (the key cannot change)'))), 'list_version_conflict')
    .argument('<key>', 'list key')
    .action(
      action(async (key: string, opts: FileOpts) => {
        if (opts.printSchema) return printSchema(listJsonSchema());
        const { environment, file: path } = need(opts, ['environment', 'file']);
        const file = readJsonFile(path, 'list file');
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.lists.update({ environment, key, file }, cliActor(), expected(opts)), LIST_COLUMNS));
      }),
    );

  withExpected(withCommon(lists.command('delete').description('delete a subscription list (the SDKs get its tombstone)')), 'list_version_conflict')
    .argument('<key>', 'list key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: EnvOpts & Expected) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.lists.delete(opts.environment, key, cliActor(), expected(opts)), LIST_COLUMNS));
      }),
    );

  withCommon(lists.command('show').description('a subscription list'))
    .argument('<key>', 'list key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.lists.show(opts.environment, key), LIST_COLUMNS));
      }),
    );

  withPaging(withCommon(lists.command('list').description('list the subscription lists of an environment, by key')))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: EnvOpts & { page: number; size: number }) => {
        await withServices(opts, async ({ services, json }) => outputPage(json, await services.engage.lists.page(opts.environment, pageRequestOf(opts)), LIST_COLUMNS));
      }),
    );
}

/** `engage push-channels …` (issue 26 PUSH): an app's notification channels (ANDROID) or categories (IOS). */
export function registerPushChannels(program: Command): void {
  const channels = program.command('push-channels').description("an app's notification channels (ANDROID) or categories (IOS), from JSON files");
  const withFile = (cmd: Command) =>
    cmd
      .option('--environment <env>', 'environment id or name (required)')
      .option('--app <app>', 'app id, public app key or name (required)')
      .option('--file <file>', 'channel JSON file (required; format: docs/preferences.md)')
      .option('--print-schema', "print the channel file's JSON Schema and exit")
      .addHelpText('after', CHANNEL_HELP);
  const withApp = (cmd: Command) => cmd.requiredOption('--environment <env>', 'environment id or name').requiredOption('--app <app>', 'app id, public app key or name');

  withFile(withCommon(channels.command('create').description('create a notification channel or category from a JSON file (a deleted key is created anew)'))).action(
    action(async (opts: FileOpts) => {
      if (opts.printSchema) return printSchema(pushChannelJsonSchema());
      const { environment, app, file: path } = need(opts, ['environment', 'app', 'file']);
      const file = readJsonFile(path, 'channel file');
      await withServices(opts, async ({ services, json }) => output(json, await services.engage.pushChannels.create({ environment, app, file }, cliActor()), CHANNEL_COLUMNS));
    }),
  );

  withExpected(withFile(withCommon(channels.command('update').description('replace a channel’s or category’s definition from a JSON file (the key cannot change)'))), 'push_channel_version_conflict')
    .argument('<key>', 'channel or category key')
    .action(
      action(async (key: string, opts: FileOpts) => {
        if (opts.printSchema) return printSchema(pushChannelJsonSchema());
        const { environment, app, file: path } = need(opts, ['environment', 'app', 'file']);
        const file = readJsonFile(path, 'channel file');
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.pushChannels.update({ environment, app, key, file }, cliActor(), expected(opts)), CHANNEL_COLUMNS));
      }),
    );

  withExpected(withApp(withCommon(channels.command('delete').description('delete a channel or category (the SDKs get its tombstone)'))), 'push_channel_version_conflict')
    .argument('<key>', 'channel or category key')
    .action(
      action(async (key: string, opts: AppOpts & Expected) => {
        await withServices(opts, async ({ services, json }) =>
          output(json, await services.engage.pushChannels.delete(opts.environment, opts.app, key, cliActor(), expected(opts)), CHANNEL_COLUMNS),
        );
      }),
    );

  withApp(withCommon(channels.command('show').description('a channel or category')))
    .argument('<key>', 'channel or category key')
    .action(
      action(async (key: string, opts: AppOpts) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.pushChannels.show(opts.environment, opts.app, key), CHANNEL_COLUMNS));
      }),
    );

  withPaging(withApp(withCommon(channels.command('list').description("list an app's channels or categories, by key"))))
    .action(
      action(async (opts: AppOpts & { page: number; size: number }) => {
        await withServices(opts, async ({ services, json }) =>
          outputPage(json, await services.engage.pushChannels.page(opts.environment, opts.app, pageRequestOf(opts)), CHANNEL_COLUMNS),
        );
      }),
    );
}
