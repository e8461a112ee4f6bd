import { InvalidArgumentError, Option, type Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { FlagFile } from '../../src/engage/flags/admin-schemas';
import type { EditOptions } from '../../src/engage/flags/service';
import type { ScheduleInput } from '../../src/engage/flags/schedules';
import { action, output, withCommon, withServices } from '../cli';
import { positive, registerDefinitionFiles, withExpected, type EnvOpts } from '../definition-files';
import { outputPage, pageRequestOf, withPaging } from '../paging';
import { readJsonFile } from './messaging';

const FLAG_COLUMNS = ['key', 'kind', 'status', 'version', 'revision', 'configurationManaged', 'updatedAt'];
const VERSION_COLUMNS = ['version', 'origin', 'actor', 'createdAt'];
const SCHEDULE_COLUMNS = ['id', 'at', 'status', 'actor', 'appliedVersion', 'appliedAt'];
const EXPOSURE_COLUMNS = ['experimentId', 'revision', 'variantKey', 'exposures'];
const SCHEDULE_STATUSES = ['PENDING', 'APPLIED', 'CANCELLED', 'FAILED'];

type Paged = EnvOpts & { page: number; size: number };

const FLAG_HELP = `
The flag file: docs/flags.md (targeting, rollouts, experiments, scheduled changes, rollback).
Its JSON Schema: engage flags create --print-schema`;

/** `--step 2026-03-01T09:00:00Z=25` (repeatable): a rollout step, its time and percentage. */
function step(value: string, previous: { at: string; percentage: number }[] = []): { at: string; percentage: number }[] {
  const i = value.lastIndexOf('=');
  const pct = i > 0 ? Number(value.slice(i + 1)) : NaN;
  if (i <= 0 || value.slice(i + 1) === '' || Number.isNaN(pct)) throw new InvalidArgumentError('--step must be <date-time>=<percentage>, e.g. 2026-03-01T09:00:00Z=25');
  return [...previous, { at: value.slice(0, i), percentage: pct }];
}

const EXPECTED = 'apply only while the flag is at this version (else: flag_version_conflict)';
const editOptions = (o: { expectedVersion?: number }): EditOptions => ({ origin: 'CLI', ...(o.expectedVersion !== undefined ? { expectedVersion: o.expectedVersion } : {}) });

/** A change's answer: the flag, and a line on stderr when it changed nothing. */
function written(json: boolean, out: { view: unknown; changed: boolean }): void {
  if (json) return output(true, { ...(out.view as object), changed: out.changed });
  output(false, out.view, FLAG_COLUMNS);
  if (!out.changed) process.stderr.write('unchanged: no new version\n');
}

/** `engage flags …` (issue 26): feature flags of an environment, their versions, scheduled changes and exposures. */
export function registerFlags(program: Command): void {
  const flags = program.command('flags').description('feature flags of an environment (JSON files; versions, rollback, scheduled changes, exposures)');

  registerDefinitionFiles(flags, {
    noun: 'flag',
    docs: 'docs/flags.md',
    schema: FlagFile,
    help: FLAG_HELP,
    expected: EXPECTED,
    create: {
      description: 'create a flag from a JSON file: version 1, ACTIVE unless the file says otherwise',
      run: async ({ services, json }, environment, file) => output(json, await services.engage.flags.create({ environment, file }, cliActor(), { origin: 'CLI' }), FLAG_COLUMNS),
    },
    update: {
      description: 'edit a flag from a JSON file: its next version (an unchanged file makes none)',
      run: async ({ services, json }, environment, key, file, expected) => written(json, await services.engage.flags.update({ environment, key, file }, cliActor(), editOptions(expected))),
    },
    verbs: {
      descriptions: { archive: 'archive a flag (a new version): devices drop it', restore: 'restore an archived flag (a new version, ACTIVE)' },
      run: async ({ services, json }, verb, environment, key, expected) => written(json, await services.engage.flags[verb](environment, key, cliActor(), editOptions(expected))),
    },
  });

  withCommon(flags.command('show').description('a flag with its current definition, or one of its versions'))
    .argument('<key>', 'flag key')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--flag-version <n>', 'that version instead of the current one', positive('--flag-version'))
    .action(
      action(async (key: string, opts: EnvOpts & { flagVersion?: number }) => {
        await withServices(opts, async ({ services, json }) => {
          if (opts.flagVersion !== undefined) {
            const v = await services.engage.flags.version(opts.environment, key, opts.flagVersion);
            if (json) output(true, v);
            else {
              output(false, v, VERSION_COLUMNS);
              process.stdout.write(`${JSON.stringify(v.definition, null, 2)}\n`);
            }
            return;
          }
          const f = await services.engage.flags.show(opts.environment, key);
          if (json) output(true, f);
          else {
            output(false, f, FLAG_COLUMNS);
            process.stdout.write(`${JSON.stringify(f.definition, null, 2)}\n`);
          }
        });
      }),
    );

  withPaging(withCommon(flags.command('list').description('list the flags of an environment, by key')))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: Paged) => {
        await withServices(opts, async ({ services, json }) => outputPage(json, await services.engage.flags.page(opts.environment, pageRequestOf(opts)), FLAG_COLUMNS));
      }),
    );

  withPaging(withCommon(flags.command('versions').description("list a flag's versions, newest first: who, when, from where")))
    .argument('<key>', 'flag key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: Paged) => {
        await withServices(opts, async ({ services, json }) => outputPage(json, await services.engage.flags.versions(opts.environment, key, pageRequestOf(opts)), VERSION_COLUMNS));
      }),
    );

  withExpected(withCommon(flags.command('rollback').description("roll a flag back: a new version whose definition is an earlier version's")), EXPECTED)
    .argument('<key>', 'flag key')
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--to-version <n>', 'the version whose definition comes back', positive('--to-version'))
    .action(
      action(async (key: string, opts: EnvOpts & { toVersion: number; expectedVersion?: number }) => {
        await withServices(opts, async ({ services, json }) => written(json, await services.engage.flags.rollback(opts.environment, key, opts.toVersion, cliActor(), editOptions(opts))));
      }),
    );

  withCommon(flags.command('schedule').description('schedule a change: a definition at a time (--at, --file), or a rollout plan (--rule, --variant, --step …)'))
    .argument('<key>', 'flag key')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--at <date-time>', 'when the file’s definition applies (RFC 3339)')
    .option('--file <file>', 'flag JSON file the flag takes at --at')
    .option('--rule <n>', 'rollout plan: the index of the rule whose rollout steps up', (v: string) => {
      if (!/^(0|[1-9][0-9]{0,2})$/.test(v)) throw new InvalidArgumentError('--rule must be a rule index (0, 1, …)');
      return Number(v);
    })
    .option('--variant <key>', 'rollout plan: the variant whose share steps up')
    .option('--step <at=percentage>', 'rollout plan: a step, e.g. 2026-03-01T09:00:00Z=25 (repeat for each step)', step)
    .addHelpText('after', FLAG_HELP)
    .action(
      action(async (key: string, opts: EnvOpts & { at?: string; file?: string; rule?: number; variant?: string; step?: { at: string; percentage: number }[] }) => {
        const plan = opts.rule !== undefined || opts.variant !== undefined || opts.step !== undefined;
        let input: ScheduleInput;
        if (plan) {
          if (opts.at !== undefined || opts.file !== undefined) throw new Error('give either --at and --file, or --rule, --variant and --step');
          if (opts.rule === undefined || opts.variant === undefined || opts.step === undefined) throw new Error('a rollout plan needs --rule, --variant and at least one --step');
          input = { rollout: { rule: opts.rule, variant: opts.variant, steps: opts.step } };
        } else {
          if (opts.at === undefined || opts.file === undefined) throw new Error('give --at and --file (or a rollout plan: --rule, --variant, --step)');
          input = { at: opts.at, definition: readJsonFile(opts.file, 'flag file') };
        }
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.flagSchedules.schedule(opts.environment, key, input, cliActor()), SCHEDULE_COLUMNS));
      }),
    );

  withPaging(withCommon(flags.command('schedules').description("list a flag's scheduled changes, by due time")))
    .argument('<key>', 'flag key')
    .requiredOption('--environment <env>', 'environment id or name')
    .addOption(new Option('--status <status>', 'only those of this status').choices(SCHEDULE_STATUSES))
    .action(
      action(async (key: string, opts: Paged & { status?: 'PENDING' | 'APPLIED' | 'CANCELLED' | 'FAILED' }) => {
        await withServices(opts, async ({ services, json }) =>
          outputPage(json, await services.engage.flagSchedules.list(opts.environment, key, opts.status, pageRequestOf(opts)), SCHEDULE_COLUMNS),
        );
      }),
    );

  withCommon(flags.command('cancel-schedule').description('cancel a pending scheduled change'))
    .argument('<key>', 'flag key')
    .argument('<id>', 'the scheduled change id (engage flags schedules)')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, id: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.flagSchedules.cancel(opts.environment, key, id, cliActor()), SCHEDULE_COLUMNS));
      }),
    );

  withCommon(flags.command('exposures').description("count a flag's experiment exposures per experiment, flag version and variant"))
    .argument('<key>', 'flag key')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (key: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => {
          const x = await services.engage.flags.exposures(opts.environment, key);
          output(json, json ? x : x.items, EXPOSURE_COLUMNS);
        });
      }),
    );
}
