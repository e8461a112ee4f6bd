import { cliActor } from '../../src/platform/audit/audit';
import type { Command } from 'commander';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';
import { registerAccessKeys } from './access-keys';
import { environmentView } from '../../src/engage/environments/views';
import { environmentDeletionWork } from '../../src/engage/environments/deletion';
import type { EnvironmentRow } from '../../src/engage/environments/service';
import { systemClock } from '../../src/platform/clock';
import { createLogger } from '../../src/platform/logger';
import { createWorkQueue } from '../../src/platform/work/queue';
import type { Services } from '../../src/services';
import { registerApps } from './apps';
import { registerInstallations } from './installations';
import { registerProfiles } from './profiles';
import { registerMessaging } from './messaging';
import { registerFlags } from './flags';
import { registerInApp } from './in-app';
import { registerAutomations } from './automations';
import { registerLists, registerPushChannels } from './preferences';
import { registerWebhookSigning } from './webhook-signing';

const COLUMNS = ['id', 'name', 'displayName', 'status', 'createdAt', 'identityTenantId'];

/** An environment as the CLI prints it: the administration API's view (the same fields, the same JSON). */
const view = (e: EnvironmentRow) => environmentView(e);

/**
 * Waits for an environment's deletion to end (`engage environments delete` without --no-wait):
 * this process runs the deletion's work item itself, through a queue that knows that kind only;
 * when a serving process holds the item's lease, it waits for that process to finish.
 */
async function waitForDeletion(services: Services, environmentId: string, pollMs = 500): Promise<void> {
  const queue = createWorkQueue({ store: services.store, clock: systemClock, logger: createLogger({ level: 'warn', format: 'json' }) });
  queue.register(environmentDeletionWork(services.engage.environmentDeletion));
  for (;;) {
    await queue.runDue();
    if (!(await services.engage.environments.find(environmentId))) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export function registerEnvironments(program: Command): void {
  const envs = program.command('environments').description('manage engagement environments (each owns apps, access keys and profiles)');

  withCommon(envs.command('create').description('create an environment'))
    .requiredOption('--name <name>', 'unique slug: lower-case letters, digits and hyphens, 1 to 63')
    .option('--display-name <text>', 'shown to people (default: the name)')
    .option('--identity-tenant <slug>', 'the identity tenant whose user subjects are its external ids: a sign-in through it binds the installation')
    .action(
      action(async (opts: CommonOptions & { name: string; displayName?: string; identityTenant?: string }) => {
        await withServices(opts, async ({ services, json }) => {
          // The tenant first: an unknown slug creates nothing.
          const identityTenantId = opts.identityTenant === undefined ? undefined : (await services.tenants.get(opts.identityTenant)).id;
          const created = await services.engage.environments.create({ name: opts.name, displayName: opts.displayName, identityTenantId }, cliActor());
          output(json, view(created), COLUMNS);
        });
      }),
    );

  withCommon(envs.command('update').description("change an environment's display name or identity tenant").argument('<environment>', 'id or name'))
    .option('--display-name <text>', 'shown to people')
    .option('--no-display-name', 'show the name again')
    .option('--identity-tenant <slug>', 'the identity tenant whose user subjects are its external ids')
    .option('--no-identity-tenant', 'name no identity tenant (external ids are opaque strings of your backend)')
    .action(
      action(async (environment: string, opts: CommonOptions & { displayName?: string | false; identityTenant?: string | false }) => {
        await withServices(opts, async ({ services, json }) => {
          if (opts.identityTenant === undefined && opts.displayName === undefined) throw new Error('give --display-name, --no-display-name, --identity-tenant or --no-identity-tenant');
          const identityTenantId = opts.identityTenant === undefined ? undefined : opts.identityTenant === false ? null : (await services.tenants.get(opts.identityTenant)).id;
          const displayName = opts.displayName === undefined ? undefined : opts.displayName === false ? null : opts.displayName;
          output(json, view(await services.engage.environments.update(environment, { displayName, identityTenantId }, cliActor())), COLUMNS);
        });
      }),
    );

  for (const [command, status, what] of [
    ['disable', 'DISABLED', 'disable an environment: the edge refuses its app keys, installation credentials and access keys (401)'],
    ['enable', 'ACTIVE', 'enable a disabled environment again'],
  ] as const) {
    withCommon(envs.command(command).description(what).argument('<environment>', 'id or name')).action(
      action(async (environment: string, opts: CommonOptions) => {
        await withServices(opts, async ({ services, json }) => output(json, view(await services.engage.environments.update(environment, { status }, cliActor())), COLUMNS));
      }),
    );
  }

  withCommon(envs.command('delete').description('delete an environment and erase every row of it (a durable job); waits for the erasure unless --no-wait').argument('<environment>', 'id or name'))
    .option('--no-wait', 'return once the environment is DELETING; a serving process erases it')
    .action(
      action(async (environment: string, opts: CommonOptions & { wait: boolean }) => {
        await withServices(opts, async ({ services, json }) => {
          const deleting = await services.engage.environments.remove(environment, cliActor());
          if (!opts.wait) return output(json, view(deleting), COLUMNS);
          await waitForDeletion(services, deleting.id);
          output(json, { ...view(deleting), status: 'DELETED' }, COLUMNS);
        });
      }),
    );

  withCommon(envs.command('overview').description('an environment at a glance: installations, push readiness per app, operations, sends and deliveries of the last hour and day, and per minute over the last hour').argument('<environment>', 'id or name')).action(
    action(async (environment: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => {
        const o = await services.engage.environmentOverview(await services.engage.environments.resolve(environment));
        if (json) return output(true, o);
        output(false, { total: o.installations.total, bound: o.installations.bound });
        output(false, o.installations.apps, ['name', 'platform', 'status', 'installations', 'pushReady']);
        const line = (w: string, x: typeof o.lastHour) => ({ window: w, accepted: x.operations.accepted, rejected: x.operations.rejected, sends: x.sends, ...x.deliveries });
        output(false, [line('last hour', o.lastHour), line('last day', o.lastDay)]);
        // The minutes of the last hour with any activity (--json has all 60).
        const busy = o.perMinute.operations
          .map((m, i) => ({ ...m, ...o.perMinute.deliveries[i] }))
          .filter(({ minute: _minute, ...counts }) => Object.values(counts).some((n) => n > 0));
        if (busy.length > 0) output(false, busy);
      });
    }),
  );

  withCommon(
    envs
      .command('sync-settings')
      .description("show or change an environment's sync settings: the refresh interval SDKs are told (30 to 86400 seconds, default 900), the least time between two in-app messages on a device (0 to 86400 seconds, default 30)")
      .argument('<environment>', 'id or name')
      .option('--refresh-after <seconds>', 'set refreshAfterSeconds')
      .option('--in-app-min-interval <seconds>', 'set inAppMinIntervalSeconds (0: none)'),
  ).action(
    action(async (environment: string, opts: CommonOptions & { refreshAfter?: string; inAppMinInterval?: string }) => {
      await withServices(opts, async ({ services, json }) => {
        const settings = services.engage.syncSettings;
        // Numbers as numbers; anything else goes to the service as given, which names the field it refuses.
        const value = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);
        const change = {
          ...(opts.refreshAfter === undefined ? {} : { refreshAfterSeconds: value(opts.refreshAfter) }),
          ...(opts.inAppMinInterval === undefined ? {} : { inAppMinIntervalSeconds: value(opts.inAppMinInterval) }),
        };
        const result = Object.keys(change).length === 0 ? await settings.show(environment) : await settings.update(environment, change, cliActor());
        output(json, result, ['environmentId', 'refreshAfterSeconds', 'inAppMinIntervalSeconds']);
      });
    }),
  );

  registerWebhookSigning(envs);

  withCommon(envs.command('show').description('show an environment').argument('<environment>', 'id or name')).action(
    action(async (environment: string, opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => output(json, view(await services.engage.environments.resolve(environment)), COLUMNS));
    }),
  );

  withCommon(envs.command('list').description('list environments')).action(
    action(async (opts: CommonOptions) => {
      await withServices(opts, async ({ services, json }) => output(json, (await services.engage.environments.list()).map(view), COLUMNS));
    }),
  );
}

/** Every engagement command (environments, apps, access keys, messaging, flags, in-app, automations, preferences): one registration in cmd/program.ts. */
export function registerEngageCommands(program: Command): void {
  registerEnvironments(program);
  registerApps(program);
  registerAccessKeys(program);
  registerInstallations(program);
  registerProfiles(program);
  registerMessaging(program);
  registerFlags(program);
  registerInApp(program);
  registerAutomations(program);
  registerLists(program);
  registerPushChannels(program);
}
