import type { Sql } from '../../platform/store/sql';

/**
 * The configuration-managed mark (migration 0028) `engage apply` sets on the templates and test
 * groups it declares (issue 24); the messaging services refuse to change a marked one unless
 * called with `allowManaged`. Scoped by environment.
 */
const SQL = {
  markTemplate: 'UPDATE push_templates SET configuration_managed = 1 WHERE environment_id = ? AND id = ? AND configuration_managed = 0',
  markTestGroup: 'UPDATE test_groups SET configuration_managed = 1 WHERE environment_id = ? AND id = ? AND configuration_managed = 0',
} as const;

export function createMessagingMarkStore(db: Sql) {
  return {
    /** True when the mark was set now (false: already set, or no such template in the environment). */
    async markTemplate(environmentId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.markTemplate, [environmentId, id])) === 1;
    },
    async markTestGroup(environmentId: string, id: string): Promise<boolean> {
      return (await db.run(SQL.markTestGroup, [environmentId, id])) === 1;
    },
  };
}

export type MessagingMarkStore = ReturnType<typeof createMessagingMarkStore>;
