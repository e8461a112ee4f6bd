import type { Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { parseOverlap } from './access-keys';

const COLUMNS = ['id', 'current', 'createdAt', 'retiresAt'];

/**
 * `engage environments webhook-signing show|rotate` (issue 28): the secrets that sign an
 * environment's outbound webhooks, the same service as GET|POST /environments/{e}/webhook-signing.
 */
export function registerWebhookSigning(envs: Command): void {
  const group = envs.command('webhook-signing').description("the secrets that sign an environment's outbound webhooks (Standard Webhooks, whsec_): ids and times, rotation");

  withCommon(group.command('show').description('list the secrets signing now, newest first: ids and times, never a secret').argument('<environment>', 'id or name')).action(
    action(async (environment: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => {
        const view = await services.engage.webhooks.signing.show(environment);
        output(json, json ? view : view.secrets, COLUMNS);
      });
    }),
  );

  withCommon(
    group
      .command('rotate')
      .description('make a new signing secret, printed this once; the older ones keep signing beside it for --overlap (both signatures are sent), then stop')
      .argument('<environment>', 'id or name'),
  )
    .option('--overlap <duration>', 'how long the older secrets keep signing: 0 to 7d (e.g. 0, 30m, 24h)', '24h')
    .action(
      action(async (environment: string, opts: CommonOptions & { overlap: string }) => {
        const overlapSeconds = parseOverlap(opts.overlap);
        await withServices(opts, async ({ services, json }) => {
          const rotated = await services.engage.webhooks.signing.rotate(environment, { overlapSeconds }, cliActor());
          if (json) return output(true, rotated);
          output(false, rotated.secrets, COLUMNS);
          process.stdout.write(`\nwebhook signing secret (shown once, give it to your receivers now): ${rotated.secret}\n`);
        });
      }),
    );
}
