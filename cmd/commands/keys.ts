import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';

type KeyOpts = CommonOptions & { tenant: string; key?: string };
const COLUMNS = ['keyId', 'state', 'createdAt', 'activatedAt', 'retiredAt'];

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
  sub('rotate', 'stage a new key, activate it, move the previous ACTIVE key to RETIRING', false).action(
    action(async (opts: KeyOpts) => {
      await withServices(opts, async ({ services, json }) => {
        output(json, await services.keys.rotate((await services.tenants.get(opts.tenant)).id, cliActor()), COLUMNS);
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
