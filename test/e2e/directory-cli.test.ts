/**
 * `engage directory admins add` and the directory list commands on dist/engage (issue 11):
 * the first directory administrator of a tenant, idempotent, audited with the operating-system
 * user as actor; --json and table output, one-line errors.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withServices } from '../../cmd/cli';
import { createSandbox, type Sandbox } from '../helpers/binary';

interface AdminJson { tenant: string; subject: string; role: string; permissions: string[]; assigned: boolean; directoryResource: string }

describe('dist/engage directory', () => {
  let sb: Sandbox;
  let subject: string;
  const T = ['--tenant', 'acme'];

  beforeAll(async () => {
    sb = await createSandbox({ prefix: 'engage-directory-cli-' });
    await sb.cli(['tenants', 'create', '--slug', 'acme']);
    subject = (await sb.cliJson<{ subject: string }>(['users', 'create', ...T, '--email', 'ada@acme.test', '--verified'])).subject;
  }, 120_000);
  afterAll(() => sb?.cleanup());

  it('gives a tenant its first directory administrator, once, with audit events by the OS user', async () => {
    const first = await sb.cliJson<AdminJson>(['directory', 'admins', 'add', ...T, '--subject', subject]);
    expect(first).toEqual({
      tenant: 'acme', subject, role: 'administrator', permissions: ['directory.read', 'directory.manage'], assigned: true, directoryResource: `${sb.publicUrl}/t/acme/identity/directory`,
    });
    const again = await sb.cliJson<AdminJson>(['directory', 'admins', 'add', ...T, '--email', 'ada@acme.test']);
    expect(again).toMatchObject({ subject, assigned: false });

    const resources = await sb.cliJson<{ uri: string; audience: string; scopes: string[] }[]>(['resources', 'list', ...T]);
    expect(resources).toContainEqual(expect.objectContaining({ uri: first.directoryResource, audience: first.directoryResource, scopes: ['directory.read', 'directory.manage'] }));
    expect((await sb.cliJson<{ items: { key: string }[] }>(['directory', 'permissions', 'list', ...T])).items.map((p) => p.key)).toEqual(['directory.manage', 'directory.read']);
    const roles = await sb.cli(['directory', 'roles', 'list', ...T]);
    expect(roles.split('\n')[0]).toMatch(/^key\s+displayName\s+scope\s+status\s+id$/);
    expect(roles).toMatch(/administrator\s+Administrator\s+TENANT\s+ACTIVE/);
    const assignments = await sb.cliJson<{ items: unknown[]; hasMore: boolean }>(['directory', 'assignments', 'list', ...T, '--size', '1']);
    expect(assignments).toEqual({ items: [{ roleKey: 'administrator', subject, scope: 'TENANT', organizationId: null, teamId: null }], page: 0, size: 1, hasMore: false });

    const opts = { dataDir: sb.dataDir, databaseUrl: sb.env.ENGAGE_DATABASE_URL, publicUrl: sb.publicUrl, logLevel: 'silent' };
    const events = await withServices(opts, async ({ services }) => {
      const tenantId = (await services.tenants.get('acme')).id;
      return (await services.store.audit.list({ tenantId, page: 0, size: 50 })).items;
    });
    expect(events.map((e) => e.action).sort()).toEqual([
      'directory.permission.created', 'directory.permission.created', 'directory.role.created',
      'directory.role_assignment.created', 'directory.role_permission.added', 'directory.role_permission.added',
      // The set-up through the CLI (tenants create, users create) and the directory resource made by `admins add`.
      'resource.created', 'tenant.created', 'user.created',
    ]);
    for (const e of events) expect([e.actorSubject, e.actorClientId]).toEqual([`os:${os.userInfo().username}`, null]);
  });

  it('fails with one line for an unknown subject or tenant, and bad paging', async () => {
    for (const [args, message] of [
      [['directory', 'admins', 'add', ...T, '--subject', 'nobody'], /directory_operation_rejected: no user with subject nobody/],
      [['directory', 'admins', 'add', ...T, '--email', 'nobody@acme.test'], /no user nobody@acme\.test/],
      [['directory', 'admins', 'add', '--tenant', 'nope', '--subject', subject], /nope/],
      [['directory', 'admins', 'add', ...T], /exactly one of --subject and --email/],
      [['directory', 'roles', 'list', ...T, '--size', '201'], /size/],
    ] as const) {
      const r = await sb.run([...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toMatch(/^engage: [^\n]+\n$/);
      expect(r.stderr).toMatch(message);
    }
  });

  it('creates and changes the directory (the management API\'s twins): organization, team, members, permission, role and its permission, assignment; refuses the control tenant and bad input', async () => {
    const cli = (args: string[]) => sb.cliJson<Record<string, unknown>>(['directory', ...args, ...T]);
    const org = await cli(['organizations', 'create', '--slug', 'east', '--name', 'East']);
    expect(org).toEqual({ tenant: 'acme', organization: 'east', id: expect.any(String) });
    const team = await cli(['teams', 'create', '--organization', 'east', '--slug', 'ops', '--name', 'Ops']);
    expect(team).toEqual({ tenant: 'acme', organization: 'east', team: 'ops', id: expect.any(String) });
    expect(await cli(['members', 'add', '--organization', 'east', '--subject', subject])).toMatchObject({ team: null, subject, added: true });
    expect(await cli(['members', 'add', '--organization', 'east', '--team', 'ops', '--subject', subject])).toMatchObject({ team: 'ops', added: true });
    expect(await cli(['permissions', 'create', '--key', 'ops.run', '--name', 'Run ops'])).toEqual({ tenant: 'acme', permission: 'ops.run', created: true });
    expect(await cli(['roles', 'create', '--key', 'operator', '--name', 'Operator', '--scope', 'TEAM'])).toMatchObject({ role: 'operator', id: expect.any(String) });
    expect(await cli(['roles', 'add-permission', '--key', 'operator', '--permission', 'ops.run'])).toMatchObject({ added: true });
    const a = ['--role', 'operator', '--subject', subject, '--scope', 'TEAM', '--organization-id', org.id as string, '--team-id', team.id as string];
    expect(await cli(['assignments', 'add', ...a])).toEqual({ tenant: 'acme', roleKey: 'operator', subject, scope: 'TEAM', organizationId: org.id, teamId: team.id, assigned: true });
    expect((await sb.cliJson<{ items: unknown[] }>(['directory', 'assignments', 'list', ...T])).items).toContainEqual({ roleKey: 'operator', subject, scope: 'TEAM', organizationId: org.id, teamId: team.id });
    expect(await cli(['assignments', 'revoke', ...a])).toMatchObject({ revoked: true });
    expect(await cli(['roles', 'remove-permission', '--key', 'operator', '--permission', 'ops.run'])).toMatchObject({ removed: true });
    expect(await cli(['members', 'remove', '--organization', 'east', '--subject', subject])).toMatchObject({ removed: true });

    for (const [args, message] of [
      [['directory', 'organizations', 'create', '--tenant', 'control', '--slug', 'x', '--name', 'X'], /control tenant/],
      [['directory', 'assignments', 'add', '--tenant', 'control', '--role', 'administrator', '--subject', subject], /control tenant/],
      [['directory', 'organizations', 'create', ...T, '--slug', 'east', '--name', 'Again'], /directory_operation_rejected: organization east exists/],
      [['directory', 'organizations', 'create', ...T, '--slug', 'Bad Slug', '--name', 'B'], /invalid_request: slug/],
      [['directory', 'roles', 'create', ...T, '--key', 'r', '--name', 'R', '--scope', 'WORLD'], /invalid_request: scope/],
      [['directory', 'assignments', 'add', ...T, '--role', 'operator', '--subject', subject, '--scope', 'TEAM'], /invalid_request/],
    ] as const) {
      const r = await sb.run([...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toMatch(/^engage: [^\n]+\n$/);
      expect(r.stderr).toMatch(message);
    }
    await sb.cli(['directory', 'organizations', 'delete', ...T, '--slug', 'east']);
    await sb.cli(['directory', 'roles', 'delete', ...T, '--key', 'operator']);
    await sb.cli(['directory', 'permissions', 'delete', ...T, '--key', 'ops.run']);
  });

  it('deletes an organization, team, role and permission (the management API\'s twins), audited by the OS user; refuses the control tenant and unknown or malformed names', async () => {
    const opts = { dataDir: sb.dataDir, databaseUrl: sb.env.ENGAGE_DATABASE_URL, publicUrl: sb.publicUrl, logLevel: 'silent' };
    const actor = { subject: 'test', clientId: null };
    await withServices(opts, async ({ services }) => {
      const t = (await services.tenants.get('acme')).id;
      await services.directory.createOrganization(t, { slug: 'north', displayName: 'North' }, actor);
      await services.directory.createTeam(t, 'north', { slug: 'sales', displayName: 'Sales' }, actor);
      await services.directory.createRole(t, { key: 'clerk', displayName: 'Clerk', scope: 'TENANT' }, actor);
      await services.directory.createPermission(t, { key: 'orders.read', displayName: 'Read orders' }, actor);
    });
    expect(await sb.cliJson(['directory', 'teams', 'delete', ...T, '--organization', 'north', '--slug', 'sales'])).toEqual({ tenant: 'acme', organization: 'north', team: 'sales', deleted: true });
    expect(await sb.cliJson(['directory', 'organizations', 'delete', ...T, '--slug', 'north'])).toEqual({ tenant: 'acme', organization: 'north', deleted: true });
    expect(await sb.cliJson(['directory', 'roles', 'delete', ...T, '--key', 'clerk'])).toEqual({ tenant: 'acme', role: 'clerk', deleted: true });
    expect(await sb.cliJson(['directory', 'permissions', 'delete', ...T, '--key', 'orders.read'])).toEqual({ tenant: 'acme', permission: 'orders.read', deleted: true });
    expect((await sb.cliJson<{ items: unknown[] }>(['directory', 'organizations', 'list', ...T])).items).toEqual([]);
    expect((await sb.cliJson<{ items: { key: string }[] }>(['directory', 'roles', 'list', ...T])).items.map((r) => r.key)).toEqual(['administrator']);
    expect((await sb.cliJson<{ items: { key: string }[] }>(['directory', 'permissions', 'list', ...T])).items.map((p) => p.key)).toEqual(['directory.manage', 'directory.read']);
    const deleted = await withServices(opts, async ({ services }) => {
      const tenantId = (await services.tenants.get('acme')).id;
      return (await services.store.audit.list({ tenantId, page: 0, size: 50 })).items.filter((e) => e.action.endsWith('.deleted'));
    });
    expect(deleted.map((e) => [e.action, e.details.organization ?? e.details.slug ?? e.details.key, e.actorSubject]).sort()).toEqual(
      [
        ['directory.organization.deleted', 'east'], ['directory.organization.deleted', 'north'], ['directory.permission.deleted', 'ops.run'], ['directory.permission.deleted', 'orders.read'],
        ['directory.role.deleted', 'clerk'], ['directory.role.deleted', 'operator'], ['directory.team.deleted', 'sales'],
      ].map(([a, k]) => [a, k, `os:${os.userInfo().username}`]),
    );

    for (const [args, message] of [
      [['directory', 'roles', 'delete', '--tenant', 'control', '--key', 'administrator'], /control tenant.*engage operators grant\|revoke/],
      [['directory', 'organizations', 'delete', ...T, '--slug', 'north'], /directory_operation_rejected: no organization north/],
      [['directory', 'organizations', 'delete', ...T, '--slug', 'No Slug'], /invalid_request: slug: must be a slug/],
      [['directory', 'permissions', 'delete', ...T, '--key', 'no.such'], /directory_operation_rejected: no permission no\.such/],
    ] as const) {
      const r = await sb.run([...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toMatch(/^engage: [^\n]+\n$/);
      expect(r.stderr).toMatch(message);
    }
  });
});
