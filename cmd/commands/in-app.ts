import { InvalidArgumentError, Option, type Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { MessageFile } from '../../src/engage/in-app/admin-schemas';
import { MESSAGE_STATUSES, type MessageStatus } from '../../src/engage/in-app/schemas';
import { RESULT_DAYS, type MessageResults, type MessageView } from '../../src/engage/in-app/service';
import { action, output, withCommon, withServices } from '../cli';
import { registerDefinitionFiles, type EnvOpts } from '../definition-files';
import { outputPage, pageRequestOf, withPaging } from '../paging';

const COLUMNS = ['key', 'status', 'version', 'publishedVersion', 'draftPending', 'configurationManaged', 'updatedAt'];

const HELP = `
The message file: docs/in-app.md (triggers, caps, variants, publishing, results).
Its JSON Schema: engage in-app create --print-schema`;

const days = (value: string): number => {
  const n = /^[1-9][0-9]{0,2}$/.test(value) ? Number(value) : NaN;
  if (!(n <= RESULT_DAYS.max)) throw new InvalidArgumentError(`--days must be an integer from 1 to ${RESULT_DAYS.max}`);
  return n;
};

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

  registerDefinitionFiles(inApp, {
    noun: 'message',
    docs: 'docs/in-app.md',
    schema: MessageFile,
    help: HELP,
    expected: "apply only while the message's latest edit is this version (else: message_version_conflict)",
    create: {
      description: 'create a message from a JSON file: version 1, DRAFT until published',
      run: async ({ services, json }, environment, file) => shown(json, await services.engage.inApp.create({ environment, file }, cliActor())),
    },
    update: {
      description: 'edit a message from a JSON file: its next version, which devices get once published',
      run: async ({ services, json }, environment, key, file, expected) => {
        const out = await services.engage.inApp.update({ environment, key, file }, cliActor(), expected);
        shown(json, out.view, out.changed);
      },
    },
    verbs: {
      descriptions: {
        publish: 'publish a message: devices get its latest edit (also resumes a paused one)',
        pause: 'pause an active message: devices drop it until it is published again',
        archive: 'archive a message for good: devices drop it; its results stay',
      },
      run: async ({ services, json }, verb, environment, key, expected) => {
        const out = await services.engage.inApp[verb](environment, key, cliActor(), expected);
        shown(json, out.view, out.changed);
      },
    },
  });

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
