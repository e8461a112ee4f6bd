import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { DomainError } from '../../platform/errors';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Deletions (the management API's, issue 25) racing the additions that reference what they
 * delete, from two processes on one database: every loser is the directory's own refusal
 * (directory_operation_rejected), never a foreign-key failure, and nothing is left pointing at
 * a deleted organization, team or role.
 */
let h: Harness;
let tenantId: string;
const actor = { subject: 'test', clientId: null };

beforeAll(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)).id;
});
afterAll(() => h.close());

const refusedOrDone = (results: PromiseSettledResult<unknown>[]) =>
  results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason instanceof DomainError ? (r as PromiseRejectedResult).reason.code : String((r as PromiseRejectedResult).reason)));

describe('directory deletions under concurrency', () => {
  it('an organization, team or role deleted while members, teams and assignments are added: only directory refusals, no orphan', async () => {
    const other = TEST_ENGINE === 'postgres' ? await h.otherProcess() : h.services;
    const d = h.services.directory;
    const codes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { subject } = await h.services.users.create(tenantId, { email: `u${i}@example.com` }, SYSTEM_ACTOR);
      const org = `o${i}`;
      const orgId = (await d.createOrganization(tenantId, { slug: org, displayName: org }, actor)).id;
      const teamId = (await d.createTeam(tenantId, org, { slug: 'core', displayName: 'Core' }, actor)).id;
      await d.addOrganizationMember(tenantId, org, { subject }, actor);
      await d.createRole(tenantId, { key: `r${i}`, displayName: 'R', scope: 'TEAM' }, actor);
      await d.createPermission(tenantId, { key: `p${i}`, displayName: 'P' }, actor);
      await d.addTeamMember(tenantId, org, 'core', { subject }, actor);
      codes.push(
        ...refusedOrDone(
          await Promise.allSettled([
            other.directory.assignRole(tenantId, { roleKey: `r${i}`, subject, scope: 'TEAM', organizationId: orgId, teamId }, actor),
            other.directory.createTeam(tenantId, org, { slug: 'edge', displayName: 'Edge' }, actor),
            other.directory.addRolePermission(tenantId, `r${i}`, { key: `p${i}` }, actor),
            d.deleteRole(tenantId, `r${i}`, actor),
            d.deletePermission(tenantId, `p${i}`, actor),
            d.deleteOrganization(tenantId, org, actor),
          ]),
        ),
      );
    }
    expect(codes.filter((c) => c !== 'directory_operation_rejected')).toEqual([]);
    const orphans = await h.sql.all(
      `SELECT 'team' AS what FROM directory_teams t WHERE t.tenant_id = ? AND NOT EXISTS (SELECT 1 FROM directory_organizations o WHERE o.id = t.organization_id)
       UNION ALL SELECT 'assignment' FROM directory_role_assignments a WHERE a.tenant_id = ? AND NOT EXISTS (SELECT 1 FROM directory_roles r WHERE r.id = a.role_id)
       UNION ALL SELECT 'grant' FROM directory_role_permissions g WHERE g.tenant_id = ? AND NOT EXISTS (SELECT 1 FROM directory_permissions p WHERE p.tenant_id = g.tenant_id AND p.key = g.permission_key)`,
      [tenantId, tenantId, tenantId],
    );
    expect(orphans).toEqual([]);
    expect((await d.organizations(tenantId, { page: 0, size: 50 })).items).toEqual([]);
    expect((await d.roles(tenantId, { page: 0, size: 50 })).items).toEqual([]);
  });
});
