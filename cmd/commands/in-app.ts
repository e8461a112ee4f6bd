import { InvalidArgumentError, Option, type Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { MessageFile } from '../../src/engage/in-app/admin-schemas';
import { MESSAGE_STATUSES, type MessageStatus } from '../../src/engage/in-app/schemas';
import { RESULT_DAYS, type EditOptions, type MessageResults, type MessageView } from '../../src/engage/in-app/service';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { outputPage, pageRequestOf, withPaging } from '../paging';
import { readJsonFile } from './messaging';

const COLUMNS = ['key', 'status', 'version', 'publishedVersion', 'draftPending', 'configurationManaged', 'updatedAt'];

type EnvOpts = CommonOptions & { environment: string };
type FileOpts = CommonOptions & { environment?: string; file?: string; printSchema?: boolean };
type Expected = { expectedVersion?: number };

const HELP = `
The message file: docs/in-app.md (triggers, caps, variants, publishing, results).
Its JSON Schema: engage in-app create --print-schema`;

const positive = (flag: string) => (value: string): number => {
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new InvalidArgumentError(`${flag} must be a positive integer`);
  return Number(value);
};
const days = (value: string): number => {
  const n = /^[1-9][0-9]{0,2}$/.test(value) ? Number(value) : NaN;
  if (!(n <= RESULT_DAYS.max)) throw new InvalidArgumentError(`--days must be an integer from 1 to ${RESULT_DAYS.max}`);
  return n;
};

const withExpected = (cmd: Command) =>
  cmd.option('--expected-version <n>', "apply only while the message's latest edit is this version (else: message_version_conflict)", positive('--expected-version'));
const editOptions = (o: Expected): EditOptions => (o.expectedVersion !== undefined ? { expectedVersion: o.expectedVersion } : {});

/** A message as a table, then its latest edit (`--json`: the whole view, as the API answers it). */
function shown(json: boolean, v: MessageView, changed?: boolean): void {
  if (json) return output(true, changed === undefined ? v : { ...v, changed });
  output(false, v, COLUMNS);
  if (changed === false) process.stderr.write('unchanged\n');
}

/** Results as one line per variant with its totals (`--json`: with the daily series). */
function results(json: boolean, r: MessageResults): void {
  if (json) return output(true, r);
  output(false, r.variants.map((v) => ({ variant: v.variantId ?? '-', ...v.totals })), ['variant', 'IMPRESSION', 'CLICK', 'DISMISS', 'CONVERSION']);
}

/** `engage in-app …` (issue 27): in-app messages of an environment, their publishing and results. */
export function registerInApp(program: Command): void {
  const inApp = program.command('in-app').description('in-app messages of an environment (JSON files; publish, pause, archive, results)');
  const printSchema = () => void process.stdout.write(JSON.stringify(JSON.parse(JSON.stringify(MessageFile)), null, 2) + '\n');

  withCommon(inApp.command('create').description('create a message from a JSON file: version 1, DRAFT until published'))
    .option('--environment <env>', 'environment id or name (required)')
    .option('--file <file>', 'message JSON file (required; format: docs/in-app.md)')
    .option('--print-schema', "print the message file's JSON Schema and exit")
    .addHelpText('after', HELP)
    .action(
      action(async (opts: FileOpts) => {
        if (opts.printSchema) return printSchema();
        if (!opts.environment) throw new Error("required option '--environment <env>' not specified");
        if (!opts.file) throw new Error("required option '--file <file>' not specified");
        const file = readJsonFile(opts.file, 'message file');
        const environment = opts.environment;
        await withServices(opts, async ({ services, json }) => shown(json, await services.engage.inApp.create({ environment, file }, cliActor())));
      }),
    );

  withExpected(withCommon(inApp.command('update').description('edit a message from a JSON file: its next version, which devices get once published')))
    .argument('<key>', 'message key (immutable)')
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--file <file>', 'message JSON file (format: docs/in-app.md)')
    .addHelpText('after', HELP)
    .action(
      action(async (key: string, opts: EnvOpts & Expected & { file: string }) => {
        const file = readJsonFile(opts.file, 'message file');
        await withServices(opts, async ({ services, json }) => {
          const out = await services.engage.inApp.update({ environment: opts.environment, key, file }, cliActor(), editOptions(opts));
          shown(json, out.view, out.changed);
        });
      }),
    );

  const TRANSITIONS = {
    publish: 'publish a message: devices get its latest edit (also resumes a paused one)',
    pause: 'pause an active message: devices drop it until it is published again',
    archive: 'archive a message for good: devices drop it; its results stay',
  } as const;
  for (const verb of ['publish', 'pause', 'archive'] as const) {
    withExpected(withCommon(inApp.command(verb).description(TRANSITIONS[verb])))
      .argument('<key>', 'message key')
      .requiredOption('--environment <env>', 'environment id or name')
      .action(
        action(async (key: string, opts: EnvOpts & Expected) => {
          await withServices(opts, async ({ services, json }) => {
            const out = await services.engage.inApp[verb](opts.environment, key, cliActor(), editOptions(opts));
            shown(json, out.view, out.changed);
          });
        }),
      );
  }

  withCommon(inApp.command('show').description('a message: its status, latest edit and the version devices are served'))
    .argument('<key>', 'message key')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--published', 'print the published definition instead of the latest edit')
    .action(
      action(async (key: string, opts: EnvOpts & { published?: boolean }) => {
        await withServices(opts, async ({ services, json }) => {
          const v = await services.engage.inApp.show(opts.environment, key);
          if (json) return output(true, v);
          output(false, v, COLUMNS);
          const def = opts.published ? v.published : v.definition;
          process.stdout.write(def === null ? '(never published)\n' : `${JSON.stringify(def, null, 2)}\n`);
        });
      }),
    );

  withPaging(withCommon(inApp.command('list').description('list the messages of an environment, by key')))
    .requiredOption('--environment <env>', 'environment id or name')
    .addOption(new Option('--status <status>', 'only those of this status').choices(MESSAGE_STATUSES))
    .action(
      action(async (opts: EnvOpts & { page: number; size: number; status?: MessageStatus }) => {
        await withServices(opts, async ({ services, json }) => outputPage(json, await services.engage.inApp.page(opts.environment, pageRequestOf(opts), opts.status), COLUMNS));
      }),
    );

  withCommon(inApp.command('results').description("count a message's interactions per variant and type (IMPRESSION, CLICK, DISMISS, CONVERSION)"))
    .argument('<key>', 'message key')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--days <n>', `UTC days back, today included (1 to ${RESULT_DAYS.max}, default ${RESULT_DAYS.default})`, days)
    .action(
      action(async (key: string, opts: EnvOpts & { days?: number }) => {
        await withServices(opts, async ({ services, json }) => results(json, await services.engage.inApp.results(opts.environment, key, opts.days ?? RESULT_DAYS.default)));
      }),
    );
}
