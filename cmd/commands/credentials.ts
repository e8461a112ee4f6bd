import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';

const COLUMNS = ['credentialId', 'resourceUri', 'status', 'createdAt'];

export function registerCredentials(program: Command): void {
  const credentials = program.command('credentials').description('manage resource-server credentials (introspection, grant revocation)');

  withCommon(credentials.command('issue').description('issue a credential for a resource; the secret is printed once'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .requiredOption('--resource <uri>', 'registered resource URI')
    .action(
      action(async (opts: CommonOptions & { tenant: string; resource: string }) => {
        await withServices(opts, async ({ services, json }) => {
          const issued = await services.credentials.issue((await services.tenants.get(opts.tenant)).id, opts.resource, cliActor());
          output(json, issued, ['credentialId', 'credentialSecret']);
          if (!json) process.stderr.write('The credential secret is shown only now; store it safely.\n');
        });
      }),
    );

  withCommon(credentials.command('list').description('list credentials (never their secrets)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .action(
      action(async (opts: CommonOptions & { tenant: string }) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.credentials.list((await services.tenants.get(opts.tenant)).id), COLUMNS));
      }),
    );

  // `delete` is the management API's DELETE /credentials/{id}: the credential is revoked and stays listed as REVOKED.
  for (const [name, what] of [
    ['revoke', 'revoke a credential at once'],
    ['delete', 'delete a credential (as the management API does: revoked at once, listed as REVOKED)'],
  ] as const) {
    withCommon(credentials.command(name).description(what))
      .requiredOption('--tenant <tenant>', 'slug or id')
      .requiredOption('--credential <id>', 'credential id')
      .action(
        action(async (opts: CommonOptions & { tenant: string; credential: string }) => {
          await withServices(opts, async ({ services, json }) => {
            const tenantId = (await services.tenants.get(opts.tenant)).id;
            await services.credentials.revoke(tenantId, opts.credential, cliActor());
            output(json, (await services.credentials.list(tenantId)).filter((c) => c.credentialId === opts.credential), COLUMNS);
          });
        }),
      );
  }
}
