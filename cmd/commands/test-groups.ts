import { cliActor } from '../../src/platform/audit/audit';
import type { Command } from 'commander';
import type { TestGroupMember } from '../../src/engage/messaging/test-groups';
import { outputPage, pageRequestOf, withPaging } from '../paging';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const GROUP_COLUMNS = ['id', 'name', 'memberCount', 'configurationManaged', 'updatedAt'];
const collect = (v: string, prev: string[] = []) => [...prev, v];

type MemberOpts = { installation?: string[]; externalId?: string[] };
/** Members in the order given: installations first, then external ids. */
const membersOf = (o: MemberOpts): TestGroupMember[] => [
  ...(o.installation ?? []).map((installationId) => ({ installationId })),
  ...(o.externalId ?? []).map((externalId) => ({ externalId })),
];

function withMembers(cmd: Command): Command {
  return cmd
    .option('--installation <id>', 'an installation of the environment (repeatable)', collect)
    .option('--external-id <id>', 'a profile’s external id: its installations when a test is sent (repeatable)', collect);
}

function showGroup(json: boolean, g: { members: TestGroupMember[] } & Record<string, unknown>) {
  if (json) return output(true, g);
  output(false, g, GROUP_COLUMNS);
  for (const m of g.members) process.stdout.write('installationId' in m ? `installation ${m.installationId}\n` : `external-id ${m.externalId}\n`);
}

/** `engage test-groups …` (issue 24 point 4): named sets of test devices, the same service as the administration API. */
export function registerTestGroups(program: Command): void {
  const groups = program.command('test-groups').description('test groups of an environment: the devices test sends go to (at most 100 members)');
  type EnvOpts = CommonOptions & { environment: string };

  withMembers(withCommon(groups.command('create').description('create a test group')))
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--name <name>', 'the group name (unique in the environment)')
    .action(
      action(async (opts: EnvOpts & MemberOpts & { name: string }) => {
        await withServices(opts, async ({ services, json }) =>
          showGroup(json, await services.engage.messaging.testGroups.create({ environment: opts.environment, name: opts.name, members: membersOf(opts) }, cliActor())),
        );
      }),
    );

  withPaging(withCommon(groups.command('list').description('list the test groups of an environment, by name')))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: EnvOpts & { page: number; size: number }) => {
        await withServices(opts, async ({ services, json }) =>
          outputPage(json, await services.engage.messaging.testGroups.list(opts.environment, pageRequestOf(opts)), GROUP_COLUMNS),
        );
      }),
    );

  withCommon(groups.command('show').description('a test group and its members'))
    .argument('<group>', 'test group id or name')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (group: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => showGroup(json, await services.engage.messaging.testGroups.show(opts.environment, group)));
      }),
    );

  withMembers(withCommon(groups.command('update').description('rename a test group and/or replace its members (--clear empties it)')))
    .argument('<group>', 'test group id or name')
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--name <name>', 'the new name')
    .option('--clear', 'replace the members with none (or with the --installation/--external-id given)')
    .action(
      action(async (group: string, opts: EnvOpts & MemberOpts & { name?: string; clear?: boolean }) => {
        const replace = opts.clear || opts.installation !== undefined || opts.externalId !== undefined;
        if (!replace && opts.name === undefined) throw new Error('give --name, --installation, --external-id or --clear');
        await withServices(opts, async ({ services, json }) =>
          showGroup(
            json,
            await services.engage.messaging.testGroups.update({ environment: opts.environment, ref: group, name: opts.name, members: replace ? membersOf(opts) : undefined }, cliActor()),
          ),
        );
      }),
    );

  withCommon(groups.command('delete').description('delete a test group (its past test sends stay)'))
    .argument('<group>', 'test group id or name')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (group: string, opts: EnvOpts) => {
        await withServices(opts, async ({ services, json }) => {
          await services.engage.messaging.testGroups.delete(opts.environment, group, cliActor());
          output(json, { deleted: group }, ['deleted']);
        });
      }),
    );
}
