import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';
import { JWKS_MAX_AGE_SECONDS } from '../../src/identity/keys/service';

type KeyOpts = CommonOptions & { tenant: string; key?: string; now?: boolean };
const COLUMNS = ['keyId', 'state', 'createdAt', 'activatedAt', 'activatesAt', 'retiredAt'];

const ROTATE_HELP = `
By default the new key is STAGED: published in the JWKS at once, and made ACTIVE (the previous
ACTIVE key becoming RETIRING) once the JWKS cache lifetime has passed (max-age ${JWKS_MAX_AGE_SECONDS} s),
so that relying parties caching the JWKS already hold it when its first token arrives. A running
\`engage serve\` activates it within seconds of that time (any one process of a fleet); with no server
running, the next \`engage keys list\` or server start does. activatesAt shows when. One scheduled
rotation at a time.

--now makes the new key ACTIVE at once (a compromised key): relying parties that cached the JWKS
fail to verify its tokens until they fetch it again; a scheduled key that never signed is retired.

Examples:
  engage keys rotate --tenant acme
  engage keys rotate --tenant acme --now
`;

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("manage a tenant's RS256 signing keys");
  const sub = (name: string, description: string, needsKey: boolean) => {
    const c = withCommon(keys.command(name).description(description)).requiredOption('--tenant <tenant>', 'slug or id');
    return needsKey ? c.requiredOption('--key <kid>', 'key id') : c;
  };

  sub('list', 'list keys and their states', false).action(
    action(async (opts: KeyOpts) => {
      await withServices(opts, async ({ services, json }) => {
        output(json, await services.keys.list((await services.tenants.get(opts.tenant)).id), COLUMNS);
      });
    }),
  );
  sub('stage', 'create a STAGED key (published in JWKS, not yet signing)', false).action(
    action(async (opts: KeyOpts) => {
      await withServices(opts, async ({ services, json }) => {
        output(json, await services.keys.stage((await services.tenants.get(opts.tenant)).id, cliActor()), COLUMNS);
      });
    }),
  );
  sub('rotate', `stage a new key, ACTIVE once the JWKS cache lifetime (${JWKS_MAX_AGE_SECONDS} s) has passed; the previous ACTIVE key then RETIRING`, false)
    .option('--now', 'activate the new key at once instead (relying parties that cached the JWKS may reject its tokens until they refetch)')
    .addHelpText('after', ROTATE_HELP)
    .action(
      action(async (opts: KeyOpts) => {
        await withServices(opts, async ({ services, json }) => {
          output(json, await services.keys.rotate((await services.tenants.get(opts.tenant)).id, cliActor(), { now: opts.now === true }), COLUMNS);
        });
      }),
    );
  for (const [name, description] of [
    ['activate', 'make a STAGED key ACTIVE (the previous ACTIVE key becomes RETIRING)'],
    ['retire', 'retire a STAGED or RETIRING key (RETIRED: no longer published)'],
    ['revoke', 'revoke a key at once (not the ACTIVE key: rotate first)'],
  ] as const) {
    sub(name, description, true).action(
      action(async (opts: KeyOpts) => {
        await withServices(opts, async ({ services, json }) => {
          const tenantId = (await services.tenants.get(opts.tenant)).id;
          await services.keys[name](tenantId, opts.key!, cliActor());
          output(json, await services.keys.list(tenantId), COLUMNS);
        });
      }),
    );
  }
}
