import { Option, type Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { AutomationFile } from '../../src/engage/automations/admin-schemas';
import { AUTOMATION_STATUSES, RUN_STATUSES, type AutomationStatus, type RunStatus } from '../../src/engage/automations/schemas';
import type { AutomationService, AutomationView } from '../../src/engage/automations/service';
import { action, output, withCommon, withServices } from '../cli';
import { registerDefinitionFiles, type EnvOpts } from '../definition-files';
import { outputPage, pageRequestOf, withPaging } from '../paging';

const COLUMNS = ['key', 'name', 'status', 'version', 'publishedVersion', 'apiEntry', 'configurationManaged', 'updatedAt'];
const RUN_COLUMNS = ['id', 'profileId', 'status', 'version', 'stepId', 'enteredAt', 'endedAt'];
const STEP_COLUMNS = ['seq', 'stepId', 'kind', 'status', 'attempts', 'startedAt', 'finishedAt', 'error'];

const HELP = `
The automation file: docs/automations.md (steps, entries, exit, re-entry, versions, runs).
Its JSON Schema: engage automations create --print-schema`;
const KEY_NOTE = 'automation API key (shown once; the trigger’s path segment, keep it in your backend’s secrets now)';

/** An automation as a table (`--json`: the whole view, as the API answers it). */
function shown(json: boolean, v: AutomationView & { automationApiKey?: string }, changed?: boolean): void {
  if (json) return output(true, changed === undefined ? v : { ...v, changed });
  const { automationApiKey, ...rest } = v;
  output(false, rest, COLUMNS);
  if (changed === false) process.stderr.write('unchanged\n');
  if (automationApiKey) process.stdout.write(`\n${KEY_NOTE}: ${automationApiKey}\n`);
}

/**
 * `engage automations …` (issue 28): automations of an environment, the same service as
 * `/environments/{e}/automations…` and `/environments/{e}/automation-runs/…` of the administration API.
 */
export function registerAutomations(program: Command): void {
  const group = program.command('automations').description('automations of an environment (JSON files; publish, pause, resume, archive, the API entry key, runs)');

  registerDefinitionFiles(group, {
    noun: 'automation',
    docs: 'docs/automations.md',
    schema: AutomationFile,
    help: HELP,
    expected: "apply only while the automation's latest version is this one (else: automation_version_conflict)",
    create: {
      description: 'create an automation from a JSON file: version 1, DRAFT until published; with an api entry, prints its key once',
      run: async ({ services, json }, environment, file) => shown(json, await services.engage.automations.create({ environment, file }, cliActor())),
    },
    update: {
      description: 'edit an automation from a JSON file: a DRAFT keeps it as its draft; an ACTIVE or PAUSED one publishes it as a new version at once',
      run: async ({ services, json }, environment, key, file, expected) => {
        const out = await services.engage.automations.update({ environment, key, file }, cliActor(), expected);
        shown(json, out.view, out.changed);
      },
    },
    verbs: {
      descriptions: {
        publish: 'publish a DRAFT automation: its latest version, checked, is the one runs enter',
        pause: 'pause an ACTIVE automation: no new runs; runs under way are held at their next step',
        resume: 'resume a PAUSED automation: held runs continue where they were',
        archive: 'archive an automation for good: runs under way are cancelled',
      },
      run: async ({ services, json }, verb, environment, key, expected) => {
        const out = await services.engage.automations[verb](environment, key, cliActor(), expected);
        shown(json, out.view, out.changed);
      },
    },
  });

  withCommon(group.command('rotate-key').description("make a new key for the automation's api entry, printed this once; the previous key stops working at once"))
    .argument('<key>', 'automation key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => {
          // engage apply does not manage keys: a declared automation's key is obtained here.
          const out = await services.engage.automations.rotateKey(opts.environment, key, cliActor(), { allowManaged: true });
          if (json) return output(true, out);
          process.stdout.write(`${KEY_NOTE}: ${out.automationApiKey}\n`);
        });
      }),
    );

  withCommon(group.command('show').description('an automation: its status, latest version, runs by status and step executions by step'))
    .argument('<key>', 'automation key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => {
          const v = await services.engage.automations.show(opts.environment, key);
          if (json) return output(true, v);
          output(false, v, COLUMNS);
          process.stdout.write(`runs: ${JSON.stringify(v.runs)}\nsteps: ${JSON.stringify(v.steps)}\n${JSON.stringify(v.definition, null, 2)}\n`);
        });
      }),
    );

  withPaging(withCommon(group.command('list').description('list the automations of an environment, by key')))
    .requiredOption('--environment <env>', 'environment id or name')
    .addOption(new Option('--status <status>', 'only those of this status').choices(AUTOMATION_STATUSES))
    .action(
      action(async (opts: EnvOpts & { page: number; size: number; status?: AutomationStatus }) => {
        await withServices(opts, async ({ services, json }) => outputPage(json, await services.engage.automations.page(opts.environment, pageRequestOf(opts), opts.status), COLUMNS));
      }),
    );

  const runs = group.command('runs').description("an automation's runs: list, a run's timeline, cancel");
  withPaging(withCommon(runs.command('list').description("list an automation's runs, newest first")))
    .argument('<key>', 'automation key')
    .requiredOption('--environment <env>', 'environment id or name')
    .addOption(new Option('--status <status>', 'only runs of this status').choices(RUN_STATUSES))
    .option('--profile <profileId>', 'only runs of this profile')
    .action(
      action(async (key: string, opts: EnvOpts & { page: number; size: number; status?: RunStatus; profile?: string }) => {
        await withServices(opts, async ({ services, json }) =>
          outputPage(json, await services.engage.automations.runs(opts.environment, key, pageRequestOf(opts), { status: opts.status, profileId: opts.profile }), RUN_COLUMNS),
        );
      }),
    );
  const timeline = (json: boolean, run: Awaited<ReturnType<AutomationService['run']>>) => {
    if (json) return output(true, run);
    const { steps, ...rest } = run;
    output(false, rest, RUN_COLUMNS);
    process.stdout.write('\n');
    output(false, steps, STEP_COLUMNS);
  };
  withCommon(runs.command('show').description("a run and its timeline: each step's execution, status, attempts, error"))
    .argument('<runId>', 'run id')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (runId: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => timeline(json, await services.engage.automations.run(opts.environment, runId)));
      }),
    );
  withCommon(runs.command('cancel').description('cancel a run under way: it executes no further step'))
    .argument('<runId>', 'run id')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (runId: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => timeline(json, await services.engage.automations.cancelRun(opts.environment, runId, cliActor())));
      }),
    );
}
