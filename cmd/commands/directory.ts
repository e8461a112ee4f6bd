import type { Command } from 'commander';
import { cliActor } from '../../src/platform/audit/audit';
import { parsePageRequest, type Page, type PageRequest } from '../../src/platform/http/pagination';
import { directoryUrl } from '../../src/identity/directory/routes';
import { DIRECTORY_PERMISSIONS } from '../../src/identity/directory/permissions';
import { DirectoryErrors } from '../../src/identity/directory/errors';
import { checkMemberChange, checkOrganizationCreate, checkSlug, checkTeamCreate } from '../../src/identity/directory/schemas';
import { roleAssignmentInput } from '../../src/identity/directory/service';
import { validInput } from '../../src/platform/http/schema';
import type { Services } from '../../src/services';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

type ListOptions = CommonOptions & { tenant: string; page?: string; size?: string };

/** --page and --size under the API's own rules (platform/http/pagination.ts). */
function pageOf(opts: ListOptions): PageRequest {
  const q = new URLSearchParams();
  if (opts.page !== undefined) q.set('page', opts.page);
  if (opts.size !== undefined) q.set('size', opts.size);
  return parsePageRequest(q);
}

/**
 * `engage directory …` (issue 11): the tenant's first directory administrator, on the database
 * (audit actor: the operating-system user), reads of the directory, and its changes: the
 * management API's twins (issue 25), each through the same service method, its input checked by
 * the schema the routes declare; the control tenant's refused (`engage operators` owns it).
 */
export function registerDirectory(program: Command): void {
  const directory = program.command('directory').description("a tenant's directory: administrators, permissions, roles, organizations");
  const admins = directory.command('admins').description('directory administrators');

  withCommon(admins.command('add').description('give a user of the tenant the directory.read and directory.manage permissions (role administrator); creates the directory resource if absent'))
    .requiredOption('--tenant <tenant>', 'slug or id')
    .option('--subject <subject>', "the user's subject")
    .option('--email <email>', "the user's email (instead of --subject)")
    .action(
      action(async (opts: CommonOptions & { tenant: string; subject?: string; email?: string }) => {
        if (!opts.subject === !opts.email) throw new Error('give exactly one of --subject and --email');
        await withServices(opts, async ({ services, json }) => {
          const tenant = await services.tenants.get(opts.tenant);
          let subject = opts.subject;
          if (opts.email) {
            const user = await services.users.findByEmail(tenant.id, opts.email);
            if (!user) throw new Error(`no user ${opts.email} in tenant ${tenant.slug}`);
            subject = user.subject;
          }
          const resource = await ensureDirectoryResource(services, tenant.id, directoryUrl(services.tenants.issuerOf(tenant)));
          const keys = Object.values(DIRECTORY_PERMISSIONS);
          const r = await services.directory.grantAdministrator(tenant.id, subject!, keys, cliActor());
          output(json, { tenant: tenant.slug, subject, role: 'administrator', permissions: keys, assigned: r.assigned, directoryResource: resource }, [
            'tenant', 'subject', 'role', 'permissions', 'assigned', 'directoryResource',
          ]);
        });
      }),
    );

  const lister = (name: string, description: string, columns: string[], read: (s: Services, tenantId: string, p: PageRequest) => Promise<Page<unknown>>) =>
    withCommon(directory.command(name).command('list').description(description))
      .requiredOption('--tenant <tenant>', 'slug or id')
      .option('--page <n>', 'zero-based page (default 0)')
      .option('--size <n>', 'page size, 1 to 200 (default 50)')
      .action(
        action(async (opts: ListOptions) => {
          const page = pageOf(opts);
          await withServices(opts, async ({ services, json }) => {
            const result = await read(services, (await services.tenants.get(opts.tenant)).id, page);
            output(json, json ? result : result.items, columns);
          });
        }),
      );
  lister('permissions', "list the tenant's directory permissions", ['key', 'displayName', 'status'], (s, t, p) => s.directory.permissions(t, p));
  lister('roles', "list the tenant's directory roles", ['key', 'displayName', 'scope', 'status', 'id'], (s, t, p) => s.directory.roles(t, p));
  lister('organizations', "list the tenant's organizations", ['slug', 'displayName', 'status', 'id'], (s, t, p) => s.directory.organizations(t, p));
  lister('assignments', "list the tenant's role assignments", ['roleKey', 'subject', 'scope', 'organizationId', 'teamId'], (s, t, p) => s.directory.roleAssignments(t, p));

  type DeleteOptions = CommonOptions & { tenant: string; slug?: string; organization?: string; key?: string };
  const slug = (v: string, what: string) => {
    if (!checkSlug.is(v)) throw DirectoryErrors.invalid(`${what}: must be a slug (lower-case letters, digits and inner hyphens, 1 to 63 characters)`);
    return v;
  };
  const deleter = (group: Command, description: string, options: (c: Command) => Command, run: (s: Services, tenantId: string, o: DeleteOptions) => Promise<void>, what: (o: DeleteOptions) => Record<string, unknown>) =>
    options(withCommon(group.command('delete').description(description)).requiredOption('--tenant <tenant>', 'slug or id')).action(
      action(async (opts: DeleteOptions) => {
        await withServices(opts, async ({ services, json }) => {
          const tenant = await services.tenants.get(opts.tenant);
          if (tenant.isControl) throw DirectoryErrors.controlTenant();
          await run(services, tenant.id, opts);
          const out = { tenant: tenant.slug, ...what(opts), deleted: true };
          output(json, out, Object.keys(out));
        });
      }),
    );
  const group = (name: string) => directory.commands.find((c) => c.name() === name) ?? directory.command(name);

  // Creations and changes: one action shape (tenant, control refused, the service's call, the result).
  type ChangeOptions = CommonOptions & Record<string, string | undefined> & { tenant: string };
  const changer = (cmd: Command, options: [string, string][], run: (s: Services, tenantId: string, o: ChangeOptions) => Promise<Record<string, unknown>>) => {
    const c = withCommon(cmd).requiredOption('--tenant <tenant>', 'slug or id');
    for (const [flag, what] of options) c.requiredOption(flag, what);
    return c.action(
      action(async (opts: ChangeOptions) => {
        await withServices(opts, async ({ services, json }) => {
          const tenant = await services.tenants.get(opts.tenant);
          if (tenant.isControl) throw DirectoryErrors.controlTenant();
          const out = { tenant: tenant.slug, ...(await run(services, tenant.id, opts)) };
          output(json, out, Object.keys(out));
        });
      }),
    );
  };
  const invalid = DirectoryErrors.invalid;
  const orgs = group('organizations');
  changer(orgs.command('create').description('create an organization'), [['--slug <slug>', 'unique in the tenant'], ['--name <name>', 'shown to people']], async (s, t, o) => {
    const body = validInput(checkOrganizationCreate, { slug: o.slug, displayName: o.name }, invalid);
    return { organization: body.slug, ...(await s.directory.createOrganization(t, body, cliActor())) };
  });
  const teams = group('teams').description("a tenant's teams");
  changer(teams.command('create').description('create a team in an organization'), [['--organization <slug>', 'its organization'], ['--slug <slug>', 'unique in the organization'], ['--name <name>', 'shown to people']], async (s, t, o) => {
    const body = validInput(checkTeamCreate, { slug: o.slug, displayName: o.name }, invalid);
    return { organization: o.organization, team: body.slug, ...(await s.directory.createTeam(t, slug(o.organization!, 'organization'), body, cliActor())) };
  });
  const members = directory.command('members').description('organization and team members');
  const memberFlags: [string, string][] = [['--organization <slug>', 'the organization'], ['--subject <subject>', "the user's subject"]];
  const member = (add: boolean) => async (s: Services, t: string, o: ChangeOptions) => {
    const body = validInput(checkMemberChange, { subject: o.subject }, invalid);
    const org = slug(o.organization!, 'organization');
    if (o.team !== undefined) {
      const team = slug(o.team, 'team');
      await (add ? s.directory.addTeamMember(t, org, team, body, cliActor()) : s.directory.removeTeamMember(t, org, team, body, cliActor()));
    } else await (add ? s.directory.addOrganizationMember(t, org, body, cliActor()) : s.directory.removeOrganizationMember(t, org, body, cliActor()));
    return { organization: org, team: o.team ?? null, subject: body.subject, [add ? 'added' : 'removed']: true };
  };
  changer(members.command('add').description('add a user of the tenant to an organization, or an organization member to a team (--team)'), memberFlags, member(true)).option('--team <slug>', 'a team of the organization');
  changer(members.command('remove').description('remove a member (of the organization: with its team memberships and the assignments there)'), memberFlags, member(false)).option('--team <slug>', 'a team of the organization');
  changer(group('permissions').command('create').description('create a permission'), [['--key <key>', 'unique in the tenant'], ['--name <name>', 'shown to people']], async (s, t, o) => {
    await s.directory.createPermission(t, { key: o.key, displayName: o.name }, cliActor());
    return { permission: o.key, created: true };
  });
  const roles = group('roles');
  changer(roles.command('create').description('create a role'), [['--key <key>', 'unique in the tenant'], ['--name <name>', 'shown to people'], ['--scope <scope>', 'TENANT, ORGANIZATION or TEAM']], async (s, t, o) =>
    ({ role: o.key, ...(await s.directory.createRole(t, { key: o.key, displayName: o.name, scope: o.scope }, cliActor())) }));
  changer(roles.command('add-permission').description('add a permission to a role (not one engage apply owns)'), [['--key <key>', 'the role key'], ['--permission <key>', 'an existing permission']], async (s, t, o) => {
    await s.directory.addRolePermission(t, o.key!, { key: o.permission }, cliActor());
    return { role: o.key, permission: o.permission, added: true };
  });
  changer(roles.command('remove-permission').description('remove a permission from a role (not one engage apply owns)'), [['--key <key>', 'the role key'], ['--permission <key>', 'a permission the role holds']], async (s, t, o) => {
    await s.directory.removeRolePermission(t, o.key!, o.permission!, cliActor());
    return { role: o.key, permission: o.permission, removed: true };
  });
  const assignment = (o: ChangeOptions) =>
    roleAssignmentInput({ roleKey: o.role, subject: o.subject, scope: o.scope ?? 'TENANT', organizationId: o.organizationId ?? null, teamId: o.teamId ?? null });
  const assignFlags: [string, string][] = [['--role <key>', 'the role key'], ['--subject <subject>', "the user's subject"]];
  for (const [name, description, add] of [['add', 'assign a role (its scope: the tenant, an organization or a team)', true], ['revoke', 'revoke a role assignment', false]] as const) {
    changer(group('assignments').command(name).description(description), assignFlags, async (s, t, o) => {
      const a = assignment(o);
      await (add ? s.directory.assignRole(t, a, cliActor()) : s.directory.revokeRole(t, a, cliActor()));
      return { ...a, [add ? 'assigned' : 'revoked']: true };
    })
      .option('--scope <scope>', 'TENANT (default), ORGANIZATION or TEAM')
      .option('--organization-id <id>', 'for ORGANIZATION and TEAM (organizations list shows ids)')
      .option('--team-id <id>', 'for TEAM');
  }
  deleter(group('organizations'), 'delete an organization with its teams, memberships and the role assignments in it', (c) => c.requiredOption('--slug <slug>', 'the organization'),
    (s, t, o) => s.directory.deleteOrganization(t, slug(o.slug!, 'slug'), cliActor()), (o) => ({ organization: o.slug }));
  deleter(group('teams'), 'delete a team with its memberships and the role assignments in it',
    (c) => c.requiredOption('--organization <slug>', 'its organization').requiredOption('--slug <slug>', 'the team'),
    (s, t, o) => s.directory.deleteTeam(t, slug(o.organization!, 'organization'), slug(o.slug!, 'slug'), cliActor()), (o) => ({ organization: o.organization, team: o.slug }));
  deleter(group('roles'), 'delete a role with its permissions and assignments (not one engage apply owns)', (c) => c.requiredOption('--key <key>', 'the role key'),
    (s, t, o) => s.directory.deleteRole(t, o.key!, cliActor()), (o) => ({ role: o.key }));
  deleter(group('permissions'), 'delete a permission, taking it from every role holding it (not one engage apply owns)', (c) => c.requiredOption('--key <key>', 'the permission key'),
    (s, t, o) => s.directory.deletePermission(t, o.key!, cliActor()), (o) => ({ permission: o.key }));
}

/** The directory resource (URI and audience: the directory root URL), created with both scopes when absent. */
async function ensureDirectoryResource(services: Services, tenantId: string, url: string): Promise<string> {
  if (!(await services.resources.findByUri(tenantId, url))) await services.resources.create(tenantId, { uri: url, audience: url, scopes: Object.values(DIRECTORY_PERMISSIONS) }, cliActor());
  return url;
}
