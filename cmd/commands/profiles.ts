import type { Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { showRecord } from './installations';

type Ref = CommonOptions & { environment: string; externalId?: string; id?: string };

/** Exactly one of --external-id and --id. */
function refOf(opts: Ref): { externalId: string } | { id: string } {
  if ((opts.externalId === undefined) === (opts.id === undefined)) throw new Error('give one of --external-id and --id');
  return opts.externalId !== undefined ? { externalId: opts.externalId } : { id: opts.id!.toLowerCase() };
}

export function registerProfiles(program: Command): void {
  const profiles = program.command('profiles').description('inspect and erase profiles');

  withCommon(profiles.command('show').description('show a profile: state, attributes, tags, subscriptions, installations (recent events with --external-id)'))
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--external-id <id>', 'the external id the profile is bound to')
    .option('--id <profileId>', 'the profile id (also an anonymous profile): as GET …/profiles/{id}')
    .option('--events <n>', 'how many recent events', '20')
    .action(
      action(async (opts: Ref & { events: string }) => {
        const n = Number(opts.events);
        if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error('--events must be an integer from 0 to 1000');
        const ref = refOf(opts);
        await withServices(opts, async ({ services, json }) => {
          const { inspection } = services.engage;
          const env = await services.engage.environments.resolve(opts.environment);
          if ('externalId' in ref) {
            // What GET …/profiles/external/{externalId} answers (unknown_profile too), and the recent events.
            const detail = await inspection.profileByExternalId(env.id, ref.externalId);
            return showRecord(json, { ...detail, recentEvents: (await inspection.profile(env.id, ref.externalId, n)).recentEvents });
          }
          showRecord(json, await inspection.profileById(env.id, ref.id));
        });
      }),
    );

  withCommon(profiles.command('erase').description('erase a profile and every installation bound to it (privacy request, audited): as DELETE …/profiles/{id}'))
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--external-id <id>', 'the external id the profile is bound to')
    .option('--id <profileId>', 'the profile id')
    .action(
      action(async (opts: Ref) => {
        const ref = refOf(opts);
        await withServices(opts, async ({ services, json }) => {
          const env = await services.engage.environments.resolve(opts.environment);
          const r = await services.engage.privacy.eraseProfile(env.id, ref, cliActor());
          output(json, { erased: 'profile', environmentId: env.id, installations: r.installations }, ['erased', 'environmentId', 'installations']);
        });
      }),
    );
}
