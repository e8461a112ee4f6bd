import { InvalidArgumentError, type Command } from 'commander';
import { action, withCommon, withServices, type CommandContext, type CommonOptions } from './cli';
import { readJsonFile } from './commands/messaging';

/**
 * What the CLI groups over versioned JSON definitions share (`engage flags`, `engage in-app`,
 * `engage automations`): `create --file [--print-schema]`, `update <key> --file`, the status
 * verbs, all with `--environment` and, for edits, `--expected-version` (the API's If-Match).
 */
export type EnvOpts = CommonOptions & { environment: string };
export type Expected = { expectedVersion?: number };
type FileOpts = CommonOptions & { environment?: string; file?: string; printSchema?: boolean };

/** A commander parser for a positive integer option (versions): a usage error otherwise. */
export const positive = (flag: string) => (value: string): number => {
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new InvalidArgumentError(`${flag} must be a positive integer`);
  return Number(value);
};

/** `--expected-version <n>`; `meaning` says what it guards, e.g. "apply only while the flag is at this version (else: flag_version_conflict)". */
export const withExpected = (cmd: Command, meaning: string): Command => cmd.option('--expected-version <n>', meaning, positive('--expected-version'));

export interface DefinitionFiles<V extends string> {
  /** The definition's name in messages: "flag", "message", "automation". */
  noun: string;
  /** Where its file format is documented, e.g. docs/flags.md. */
  docs: string;
  /** The file's JSON Schema (a TypeBox schema), printed by `create --print-schema`. */
  schema: unknown;
  /** Help printed after create's and update's usage. */
  help: string;
  /** What --expected-version means for this definition. */
  expected: string;
  create: { description: string; run(ctx: CommandContext, environment: string, file: unknown): Promise<void> };
  update: { description: string; run(ctx: CommandContext, environment: string, key: string, file: unknown, expected: Expected): Promise<void> };
  /** The status verbs, each `<verb> <key>` with --expected-version: their descriptions, and what one does. */
  verbs: { descriptions: Record<V, string>; run(ctx: CommandContext, verb: V, environment: string, key: string, expected: Expected): Promise<void> };
}

/** Registers `create`, `update` and the status verbs of a definition group. */
export function registerDefinitionFiles<V extends string>(group: Command, d: DefinitionFiles<V>): void {
  const what = `${d.noun} file`;
  withCommon(group.command('create').description(d.create.description))
    .option('--environment <env>', 'environment id or name (required)')
    .option('--file <file>', `${d.noun} JSON file (required; format: ${d.docs})`)
    .option('--print-schema', `print the ${what}'s JSON Schema and exit`)
    .addHelpText('after', d.help)
    .action(
      action(async (opts: FileOpts) => {
        if (opts.printSchema) return void process.stdout.write(JSON.stringify(JSON.parse(JSON.stringify(d.schema)), null, 2) + '\n');
        if (!opts.environment) throw new Error("required option '--environment <env>' not specified");
        if (!opts.file) throw new Error("required option '--file <file>' not specified");
        const file = readJsonFile(opts.file, what);
        const environment = opts.environment;
        await withServices(opts, (ctx) => d.create.run(ctx, environment, file));
      }),
    );

  withExpected(withCommon(group.command('update').description(d.update.description)), d.expected)
    .argument('<key>', `${d.noun} key (immutable)`)
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--file <file>', `${d.noun} JSON file (format: ${d.docs})`)
    .addHelpText('after', d.help)
    .action(
      action(async (key: string, opts: EnvOpts & Expected & { file: string }) => {
        const file = readJsonFile(opts.file, what);
        await withServices(opts, (ctx) => d.update.run(ctx, opts.environment, key, file, expectedOf(opts)));
      }),
    );

  for (const verb of Object.keys(d.verbs.descriptions) as V[]) {
    withExpected(withCommon(group.command(verb).description(d.verbs.descriptions[verb])), d.expected)
      .argument('<key>', `${d.noun} key`)
      .requiredOption('--environment <env>', 'environment id or name')
      .action(
        action(async (key: string, opts: EnvOpts & Expected) => {
          await withServices(opts, (ctx) => d.verbs.run(ctx, verb, opts.environment, key, expectedOf(opts)));
        }),
      );
  }
}

const expectedOf = (o: Expected): Expected => (o.expectedVersion !== undefined ? { expectedVersion: o.expectedVersion } : {});
