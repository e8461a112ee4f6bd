import type { Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { parsePageRequest } from '../../src/platform/http/pagination';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

/** Prints a record as field/value rows (nested values as JSON), or JSON with --json. */
export function showRecord(json: boolean, view: Record<string, unknown>): void {
  if (json) output(true, view);
  else output(false, Object.entries(view).map(([field, value]) => ({ field, value })), ['field', 'value']);
}

const LIST_COLUMNS = ['id', 'appId', 'platform', 'bindingState', 'generation', 'pushTokenHeld', 'createdAt'];

export function registerInstallations(program: Command): void {
  const inst = program.command('installations').description('inspect and erase SDK installations');

  withCommon(inst.command('list').description('a page of the installations of an environment, in id order (as GET …/installations)'))
    .requiredOption('--environment <env>', 'environment id or name')
    .option('--after <id>', 'the last id of the page before (the next the previous page printed)')
    .option('--size <n>', 'installations per page, 1 to 200 (default 50)')
    .action(
      action(async (opts: CommonOptions & { environment: string; after?: string; size?: string }) => {
        const q = new URLSearchParams();
        if (opts.size !== undefined) q.set('size', opts.size);
        const { size } = parsePageRequest(q);
        await withServices(opts, async ({ services, json }) => {
          const env = await services.engage.environments.resolve(opts.environment);
          const page = await services.engage.inspection.installationPage(env.id, opts.after, size);
          if (json) output(true, page);
          else {
            output(false, page.items, LIST_COLUMNS);
            if (page.next !== null) process.stderr.write(`more installations: --after ${page.next}\n`);
          }
        });
      }),
    );

  withCommon(inst.command('show').description('show an installation: state, attributes, subscriptions, generations, its last operations (as GET …/installations/{id})'))
    .argument('<id>', 'installation id')
    .option('--environment <env>', 'environment id or name')
    .action(
      action(async (id: string, opts: CommonOptions & { environment?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          const { inspection, environments } = services.engage;
          const installationId = id.toLowerCase();
          // What GET …/installations/{id} answers (its last operations, pushTokenHeld,
          // unknown_installation), plus the push token's masked tail the CLI has always shown
          // (docs/decisions.md). Without --environment, the installation's own environment.
          const environmentId = opts.environment ? (await environments.resolve(opts.environment)).id : (await inspection.installation(installationId)).environmentId;
          const detail = await inspection.installationDetail(environmentId, installationId);
          showRecord(json, { ...detail, pushToken: (await inspection.installation(installationId, environmentId)).pushToken });
        });
      }),
    );

  withCommon(inst.command('erase').description('erase an installation (privacy request, audited): as DELETE …/installations/{id}'))
    .argument('<id>', 'installation id')
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (id: string, opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => {
          const env = await services.engage.environments.resolve(opts.environment);
          await services.engage.privacy.eraseInstallation(env.id, id.toLowerCase(), cliActor());
          output(json, { erased: 'installation', id: id.toLowerCase(), environmentId: env.id }, ['erased', 'id', 'environmentId']);
        });
      }),
    );
}
