import { Option, type Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { cliActor } from '../../src/identity/audit';

const COLUMNS = ['id', 'slug', 'issuer', 'status', 'registrationMode', 'clientCount', 'resourceCount', 'createdAt'];

export function registerTenants(program: Command): void {
  const tenants = program.command('tenants').description('manage tenants (each one an OAuth issuer)');

  withCommon(tenants.command('create').description('create a tenant with its issuer and first signing key'))
    .requiredOption('--slug <slug>', 'url-safe name: lower-case letters, digits, hyphens')
    .addOption(new Option('--registration-mode <mode>', 'self-service sign-up').choices(['CONTROLLED', 'SELF_SERVICE']).default('CONTROLLED'))
    .action(
      action(async (opts: CommonOptions & { slug: string; registrationMode: string }) => {
        await withServices(opts, async ({ services, json }) => {
          output(json, await services.tenants.create({ slug: opts.slug, registrationMode: opts.registrationMode }, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(tenants.command('list').description('list tenants')).action(
    action(async (opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => {
        output(json, (await services.tenants.list(0, 1_000_000)).items, COLUMNS);
      });
    }),
  );

  withCommon(tenants.command('show').description('show one tenant').argument('<tenant>', 'slug or id')).action(
    action(async (ref: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => {
        const view = await services.tenants.view(await services.tenants.get(ref));
        if (json) output(true, view);
        else output(false, Object.entries(view).map(([field, value]) => ({ field, value })), ['field', 'value']);
      });
    }),
  );

  withCommon(tenants.command('set-issuer').description('set (or with --clear remove) a host-only custom issuer'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--issuer <url>', 'e.g. https://id.example.com')
    .option('--clear', 'go back to the managed issuer')
    .action(
      action(async (opts: CommonOptions & { tenant: string; issuer?: string; clear?: boolean }) => {
        if (!opts.issuer === !opts.clear) throw new Error('give exactly one of --issuer or --clear');
        await withServices(opts, async ({ services, json }) => {
          output(json, await services.tenants.setCustomIssuer(opts.tenant, opts.clear ? null : opts.issuer!, cliActor()), COLUMNS);
        });
      }),
    );

  withCommon(tenants.command('update').description('change the slug, issuer or registration mode (the management API\'s PUT; locks apply)'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--slug <slug>', 'new slug (the managed issuer keeps the slug it was created with)')
    .option('--issuer <url>', 'host-only custom issuer, e.g. https://id.example.com')
    .option('--clear-issuer', 'go back to the managed issuer')
    .addOption(new Option('--registration-mode <mode>', 'self-service sign-up').choices(['CONTROLLED', 'SELF_SERVICE']))
    .action(
      action(async (opts: CommonOptions & { tenant: string; slug?: string; issuer?: string; clearIssuer?: boolean; registrationMode?: 'CONTROLLED' | 'SELF_SERVICE' }) => {
        if (opts.issuer && opts.clearIssuer) throw new Error('give at most one of --issuer or --clear-issuer');
        await withServices(opts, async ({ services, json }) => {
          // What is not given stays as it is: the same service as PUT /tenants/{tenantId}.
          const current = await services.tenants.view(await services.tenants.get(opts.tenant));
          const issuer = opts.clearIssuer ? current.managedIssuer : (opts.issuer ?? current.issuer);
          const body = { slug: opts.slug ?? current.slug, issuer, registrationMode: opts.registrationMode ?? current.registrationMode };
          output(json, await services.tenants.update(current.id, body, cliActor()), COLUMNS);
        });
      }),
    );

  for (const [name, status] of [['disable', 'DISABLED'], ['enable', 'ACTIVE']] as const) {
    withCommon(tenants.command(name).description(`${name} a tenant`).argument('<tenant>', 'slug or id')).action(
      action(async (ref: string, opts: CommonOptions) => {
        await withServices(opts, async ({ services, json }) => output(json, await services.tenants.setStatus(ref, status, cliActor()), COLUMNS));
      }),
    );
  }
}
