import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

/** Prints a record as field/value rows (nested values as JSON), or JSON with --json. */
export function showRecord(json: boolean, view: Record<string, unknown>): void {
  if (json) output(true, view);
  else output(false, Object.entries(view).map(([field, value]) => ({ field, value })), ['field', 'value']);
}

export function registerInstallations(program: Command): void {
  const inst = program.command('installations').description('inspect SDK installations');

  withCommon(inst.command('show').description('show an installation: state, attributes, subscriptions, generations, operation counts'))
    .argument('<id>', 'installation id')
    .option('--environment <env>', 'environment id or name')
    .action(
      action(async (id: string, opts: CommonOptions & { environment?: string }) => {
        await withServices(opts, async ({ services, json }) => showRecord(json, await services.engage.inspection.installation(id, opts.environment)));
      }),
    );
}
