/**
 * Test groups (issue 24 point 4): a name and up to MAX_TEST_GROUP_MEMBERS members, each an
 * installation of the environment (by id) or an external id (resolved to the profile's
 * installations when a test send is made). Administered over HTTP and the CLI through this
 * service; `engage apply` passes `allowManaged`. Erasure of an installation deletes its
 * memberships (db/schema/erasure.ts).
 */
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import type { TxRunner } from '../../platform/store/store';
import type { EnvironmentService } from '../environments/service';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import { configurationManaged } from '../shared/errors';
import { MessagingErrors } from './errors';
import type { MessagingStore } from './store';
import type { ManagedOption } from './templates';
import type { TestGroupMemberRow, TestGroupRow } from './test-group-store';

type Stores = { messaging: MessagingStore } & AuditTx;

/** A test send reaches every member: a group is a handful of team devices, not an audience. */
export const MAX_TEST_GROUP_MEMBERS = 100;

export type TestGroupMember = { installationId: string } | { externalId: string };

export interface TestGroupView {
  id: string;
  environmentId: string;
  name: string;
  memberCount: number;
  configurationManaged: boolean;
  createdAt: string;
  updatedAt: string;
}

const view = (g: TestGroupRow, memberCount: number): TestGroupView => ({
  id: g.id,
  environmentId: g.environmentId,
  name: g.name,
  memberCount,
  configurationManaged: Number(g.configurationManaged) === 1,
  createdAt: g.createdAt,
  updatedAt: g.updatedAt,
});

const memberView = (m: TestGroupMemberRow): TestGroupMember => (m.installationId ? { installationId: m.installationId } : { externalId: m.externalId! });

export function createTestGroupService(deps: { store: Stores & TxRunner<Stores>; clock: Clock; environments: EnvironmentService }) {
  const { store, clock, environments } = deps;
  const now = () => clock.now().toISOString();

  /** Members checked: the bound, one kind per member, no repeats, installations of this environment only. */
  async function checkMembers(environmentId: string, members: readonly TestGroupMember[]): Promise<TestGroupMember[]> {
    if (members.length > MAX_TEST_GROUP_MEMBERS) throw MessagingErrors.invalid(`members: must have at most ${MAX_TEST_GROUP_MEMBERS} items`);
    const seen = new Set<string>();
    const out: TestGroupMember[] = [];
    members.forEach((m, i) => {
      const inst = 'installationId' in m ? m.installationId : undefined;
      const ext = 'externalId' in m ? m.externalId : undefined;
      if ((inst === undefined) === (ext === undefined)) throw MessagingErrors.invalid(`members[${i}]: must have exactly one of installationId and externalId`);
      const k = inst !== undefined ? `i:${inst.toLowerCase()}` : `e:${ext}`;
      if (seen.has(k)) throw MessagingErrors.invalid(`members[${i}]: is listed twice`);
      seen.add(k);
      out.push(inst !== undefined ? { installationId: inst.toLowerCase() } : { externalId: ext! });
    });
    const ids = out.flatMap((m) => ('installationId' in m ? [m.installationId] : []));
    const known = await store.messaging.installationsIn(environmentId, ids);
    out.forEach((m, i) => {
      // An installation of another environment is as unknown here as one that does not exist.
      if ('installationId' in m && !known.has(m.installationId)) throw MessagingErrors.invalid(`members[${i}].installationId: no installation ${m.installationId} in this environment`);
    });
    return out;
  }

  async function find(environment: string, ref: string) {
    const env = await environments.resolve(environment);
    const g = await store.messaging.findTestGroup(env.id, ref);
    if (!g) throw MessagingErrors.testGroupNotFound(ref);
    return { env, g };
  }

  async function findMutable(environment: string, ref: string, opts: ManagedOption) {
    const found = await find(environment, ref);
    if (Number(found.g.configurationManaged) === 1 && !opts.allowManaged) throw configurationManaged(`test group ${found.g.name}`);
    return found;
  }

  async function show(environment: string, ref: string) {
    const { env, g } = await find(environment, ref);
    const members = (await store.messaging.testGroupMembers(env.id, g.id)).map(memberView);
    return { ...view(g, members.length), members };
  }

  return {
    async create(input: { environment: string; name: string; members: TestGroupMember[] }, actor: AuditActor) {
      const env = await environments.resolve(input.environment);
      const members = await checkMembers(env.id, input.members);
      const id = newId();
      const at = now();
      const created = await store.tx(async (tx) => {
        if (!(await tx.messaging.insertTestGroup(id, env.id, input.name, at))) return false;
        await tx.messaging.replaceTestGroupMembers(env.id, id, members);
        await auditIn(tx, actor, 'test_group.created', { type: 'test_group', id }, { environmentId: env.id, name: input.name, members: members.length }, at);
        return true;
      });
      if (!created) throw MessagingErrors.testGroupExists(input.name);
      return show(env.id, id);
    },

    /** A new name and/or the members replaced whole. */
    async update(input: { environment: string; ref: string; name?: string; members?: TestGroupMember[] }, actor: AuditActor, opts: ManagedOption = {}) {
      const { env, g } = await findMutable(input.environment, input.ref, opts);
      const members = input.members === undefined ? undefined : await checkMembers(env.id, input.members);
      const at = now();
      await store.tx(async (tx) => {
        if (input.name !== undefined && input.name !== g.name) {
          if (!(await tx.messaging.renameTestGroup(env.id, g.id, input.name, at))) throw MessagingErrors.testGroupExists(input.name);
        } else await tx.messaging.touchTestGroup(env.id, g.id, at);
        if (members) await tx.messaging.replaceTestGroupMembers(env.id, g.id, members);
        await auditIn(tx, actor, 'test_group.updated', { type: 'test_group', id: g.id }, {
          environmentId: env.id, name: input.name ?? g.name, ...(members ? { members: members.length } : {}),
        }, at);
      });
      return show(env.id, g.id);
    },

    async delete(environment: string, ref: string, actor: AuditActor, opts: ManagedOption = {}): Promise<void> {
      const { env, g } = await findMutable(environment, ref, opts);
      const at = now();
      await store.tx(async (tx) => {
        if (!(await tx.messaging.deleteTestGroup(env.id, g.id))) throw MessagingErrors.testGroupNotFound(ref);
        await auditIn(tx, actor, 'test_group.deleted', { type: 'test_group', id: g.id }, { environmentId: env.id, name: g.name }, at);
      });
    },

    show,

    async list(environment: string, req: PageRequest): Promise<Page<TestGroupView>> {
      const env = await environments.resolve(environment);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.messaging.pageTestGroups(env.id, limit, offset)).map((r) => view(r, r.memberCount)), req);
    },
  };
}

export type TestGroupService = ReturnType<typeof createTestGroupService>;
