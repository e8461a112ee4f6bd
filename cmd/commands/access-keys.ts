import { cliActor } from '../../src/platform/audit/audit';
import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

const COLUMNS = ['id', 'name', 'status', 'prefix', 'keyHint', 'appIds', 'expiresAt', 'previousExpiresAt', 'createdAt', 'rotatedAt', 'revokedAt'];

/** Prints a freshly minted key once; the table view puts it on its own line so it is easy to copy. */
function printWithKey(json: boolean, view: { key: string }): void {
  if (json) return output(true, view);
  output(false, view, COLUMNS);
  process.stdout.write(`\naccess key (shown once, store it now): ${view.key}\n`);
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `90s`, `30m`, `24h`, `7d`, or a number of seconds: the rotation overlap, in seconds. */
export function parseOverlap(v: string): number {
  const m = /^(\d{1,7})([smhd]?)$/.exec(v.trim());
  if (!m) throw new Error(`--overlap: ${v} is not a duration (e.g. 0, 90s, 30m, 24h, 7d)`);
  return Number(m[1]) * UNITS[m[2] || 's'];
}

/** `engage access-keys …` (issue 24 point 3): the environment service the administration API's access-key routes call. */
export function registerAccessKeys(program: Command): void {
  const keys = program.command('access-keys').description('manage environment access keys (server-to-server; never ship them in an app)');

  withCommon(keys.command('create').description('create an access key restricted to some apps; the key is printed once'))
    .requiredOption('--environment <env>', 'environment id or name')
    .requiredOption('--app <app...>', 'app ids or names the key may act for')
    .option('--name <name>', 'a label')
    .option('--expires-at <time>', 'when the key stops working (RFC 3339, in the future); default never')
    .action(
      action(async (opts: CommonOptions & { environment: string; app: string[]; name?: string; expiresAt?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          printWithKey(json, await services.engage.environments.createAccessKey({ environment: opts.environment, apps: opts.app, name: opts.name, expiresAt: opts.expiresAt }, cliActor()));
        });
      }),
    );

  withCommon(keys.command('list').description('list access keys: a prefix and the last four characters, never the keys'))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.listAccessKeys(opts.environment), COLUMNS));
      }),
    );

  withCommon(keys.command('show').description('show an access key (never the key)').argument('<id>', 'access key id'))
    .requiredOption('--environment <env>', 'environment id or name')
    .action(
      action(async (id: string, opts: CommonOptions & { environment: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.showAccessKey(opts.environment, id), COLUMNS));
      }),
    );

  withCommon(keys.command('revoke').description('revoke an access key: refused from the next request on').argument('<id>', 'access key id'))
    .option('--environment <env>', 'environment id or name: the key must be of it')
    .action(
      action(async (id: string, opts: CommonOptions & { environment?: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.engage.environments.revokeAccessKey(id, cliActor(), { environment: opts.environment }), COLUMNS));
      }),
    );

  withCommon(
    keys
      .command('rotate')
      .description('replace the secret of an access key (same id and apps); the old secret stops working at once, or after --overlap')
      .argument('<id>', 'access key id'),
  )
    .option('--environment <env>', 'environment id or name: the key must be of it')
    .option('--overlap <duration>', 'how long the old secret keeps working: 0 to 7d (e.g. 30m, 24h)', '0')
    .action(
      action(async (id: string, opts: CommonOptions & { environment?: string; overlap: string }) => {
        const overlapSeconds = parseOverlap(opts.overlap);
        await withServices(opts, async ({ services, json }) =>
          printWithKey(json, await services.engage.environments.rotateAccessKey(id, cliActor(), { environment: opts.environment, overlapSeconds })),
        );
      }),
    );
}
