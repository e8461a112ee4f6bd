/**
 * Test groups (issue 24 point 4, migration 0028): named sets of installations or external ids of
 * one environment that console test sends address. Statements of the messaging store (the
 * owner of test_groups and test_group_members, src/db/owners.ts); every one takes the
 * environment explicitly.
 */
import type { testGroupMembers, testGroups } from '../../db/schema';
import { valuesList, type Sql } from '../../platform/store/sql';

export type TestGroupRow = typeof testGroups.$inferSelect;
export type TestGroupMemberRow = typeof testGroupMembers.$inferSelect;
export type TestGroupListRow = TestGroupRow & { memberCount: number };

const GROUP = `id, environment_id AS "environmentId", name, configuration_managed AS "configurationManaged", created_at AS "createdAt", updated_at AS "updatedAt"`;
const MEMBER = `group_id AS "groupId", environment_id AS "environmentId", position, installation_id AS "installationId", external_id AS "externalId"`;

const SQL = {
  insert: `INSERT INTO test_groups (id, environment_id, name, configuration_managed, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)
    ON CONFLICT (environment_id, name) DO NOTHING`,
  byId: `SELECT ${GROUP} FROM test_groups WHERE environment_id = ? AND id = ?`,
  byName: `SELECT ${GROUP} FROM test_groups WHERE environment_id = ? AND name = ?`,
  page: `SELECT ${GROUP}, (SELECT COUNT(*) FROM test_group_members m WHERE m.group_id = g.id) AS "memberCount"
    FROM test_groups g WHERE environment_id = ? ORDER BY name, id LIMIT ? OFFSET ?`,
  members: `SELECT ${MEMBER} FROM test_group_members WHERE group_id = ? AND environment_id = ? ORDER BY position`,
  deleteMembers: `DELETE FROM test_group_members WHERE group_id = ? AND environment_id = ?`,
  insertMembers: (n: number) => `INSERT INTO test_group_members (group_id, environment_id, position, installation_id, external_id) VALUES ${valuesList(n, 5)}`,
  // Conditional on no other group of the environment holding the name: a rename never collides.
  rename: `UPDATE test_groups SET name = ?, updated_at = ? WHERE environment_id = ? AND id = ?
    AND NOT EXISTS (SELECT 1 FROM test_groups o WHERE o.environment_id = ? AND o.name = ? AND o.id <> ?)`,
  touch: `UPDATE test_groups SET updated_at = ? WHERE environment_id = ? AND id = ?`,
  delete: `DELETE FROM test_groups WHERE environment_id = ? AND id = ?`,
  installationsIn: (n: number) => `SELECT id FROM installations WHERE environment_id = ? AND id IN (${new Array<string>(n).fill('?').join(', ')})`,
} as const;

export function createTestGroupStatements(db: Sql) {
  return {
    async insertTestGroup(id: string, environmentId: string, name: string, at: string): Promise<boolean> {
      return (await db.run(SQL.insert, [id, environmentId, name, at, at])) === 1;
    },
    /** By id, then by name: a group is named either way in paths and commands. */
    async findTestGroup(environmentId: string, ref: string): Promise<TestGroupRow | undefined> {
      return (await db.get<TestGroupRow>(SQL.byId, [environmentId, ref])) ?? db.get<TestGroupRow>(SQL.byName, [environmentId, ref]);
    },
    async pageTestGroups(environmentId: string, limit: number, offset: number): Promise<TestGroupListRow[]> {
      return (await db.all<TestGroupListRow>(SQL.page, [environmentId, limit, offset])).map((r) => ({ ...r, memberCount: Number(r.memberCount) }));
    },
    testGroupMembers(environmentId: string, groupId: string): Promise<TestGroupMemberRow[]> {
      return db.all<TestGroupMemberRow>(SQL.members, [groupId, environmentId]);
    },
    /** The members replaced whole, in order (positions 0..n-1). */
    async replaceTestGroupMembers(environmentId: string, groupId: string, members: readonly { installationId?: string; externalId?: string }[]): Promise<void> {
      await db.run(SQL.deleteMembers, [groupId, environmentId]);
      for (let i = 0; i < members.length; i += 100) {
        const part = members.slice(i, i + 100);
        await db.run(SQL.insertMembers(part.length), part.flatMap((m, j) => [groupId, environmentId, i + j, m.installationId ?? null, m.externalId ?? null]));
      }
    },
    /** False when another group of the environment holds the name. */
    async renameTestGroup(environmentId: string, groupId: string, name: string, at: string): Promise<boolean> {
      return (await db.run(SQL.rename, [name, at, environmentId, groupId, environmentId, name, groupId])) === 1;
    },
    async touchTestGroup(environmentId: string, groupId: string, at: string): Promise<void> {
      await db.run(SQL.touch, [at, environmentId, groupId]);
    },
    async deleteTestGroup(environmentId: string, groupId: string): Promise<boolean> {
      await db.run(SQL.deleteMembers, [groupId, environmentId]);
      return (await db.run(SQL.delete, [environmentId, groupId])) === 1;
    },
    /** Which of `ids` are installations of this environment. */
    async installationsIn(environmentId: string, ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      return new Set((await db.all<{ id: string }>(SQL.installationsIn(ids.length), [environmentId, ...ids])).map((r) => r.id));
    },
  };
}
