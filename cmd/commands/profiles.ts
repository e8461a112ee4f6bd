import type { Command } from 'commander';
import { action, withCommon, withServices, type CommonOptions } from '../cli';
import { showRecord } from './installations';

export function registerProfiles(program: Command): void {
  const profiles = program.command('profiles').description('inspect profiles');

  withCommon(profiles.command('show').description('show a profile: state, attributes, tags, subscriptions, installations, recent events'))
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--external-id <id>', 'the external id the profile is bound to')
    .option('--events <n>', 'how many recent events', '20')
    .action(
      action(async (opts: CommonOptions & { environment: string; externalId: string; events: string }) => {
        const n = Number(opts.events);
        if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error('--events must be an integer from 0 to 1000');
        await withServices(opts, async ({ services, json }) => showRecord(json, await services.engage.inspection.profile(opts.environment, opts.externalId, n)));
      }),
    );
}
