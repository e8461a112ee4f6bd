import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Membership rules under concurrency (two processes on one database): a team membership or an
 * ORGANIZATION assignment added while the organization membership is removed never outlives it.
 */
let h: Harness;
let tenantId: string;
let orgId: string;
const actor = { subject: 'test', clientId: null };

beforeAll(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)).id;
  const d = h.services.directory;
  orgId = (await d.createOrganization(tenantId, { slug: 'eng', displayName: 'Eng' }, actor)).id;
  await d.createTeam(tenantId, 'eng', { slug: 'core', displayName: 'Core' }, actor);
  await d.createRole(tenantId, { key: 'lead', displayName: 'Lead', scope: 'ORGANIZATION' }, actor);
});
afterAll(() => h.close());

describe('directory under concurrency', () => {
  it('a removal racing additions leaves no team membership or assignment without its organization membership', async () => {
    // SQLite: one writer per database, and a second store in this thread would block it while
    // waiting for the file lock; the race is then between transactions of one process.
    const other = TEST_ENGINE === 'postgres' ? await h.otherProcess() : h.services;
    for (let i = 0; i < 12; i++) {
      const { subject } = await h.services.users.create(tenantId, { email: `u${i}@example.com` }, SYSTEM_ACTOR);
      await h.services.directory.addOrganizationMember(tenantId, 'eng', { subject }, actor);
      await Promise.allSettled([
        h.services.directory.addTeamMember(tenantId, 'eng', 'core', { subject }, actor),
        other.directory.assignRole(tenantId, { roleKey: 'lead', subject, scope: 'ORGANIZATION', organizationId: orgId, teamId: null }, actor),
        other.directory.removeOrganizationMember(tenantId, 'eng', { subject }, actor),
      ]);
    }
    const orphans = await h.sql.all(
      `SELECT t.subject FROM directory_team_members t WHERE t.tenant_id = ? AND NOT EXISTS (
         SELECT 1 FROM directory_organization_members m WHERE m.organization_id = t.organization_id AND m.subject = t.subject)
       UNION ALL
       SELECT a.subject FROM directory_role_assignments a WHERE a.tenant_id = ? AND a.organization_id IS NOT NULL AND NOT EXISTS (
         SELECT 1 FROM directory_organization_members m WHERE m.organization_id = a.organization_id AND m.subject = a.subject)`,
      [tenantId, tenantId],
    );
    expect(orphans).toEqual([]);
  });
});
