import type { Clock } from '../../platform/clock';
import type { Logger } from '../../platform/logger';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { insertWorkItemIn, type WorkKind } from '../../platform/work/queue';
import type { WorkStore } from '../../platform/work/store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { EnvironmentDeletionStore } from './deletion-store';
import type { EnvironmentRow, EnvironmentStore } from './store';

/** The work kind of an environment's deletion (platform/work; registered in src/work.ts). */
export const ENVIRONMENT_DELETION_WORK = 'engage.environment.delete';

export interface EnvironmentDeletionWork {
  environmentId: string;
  /** Who asked: the actor of the `environment.deleted` event recorded when the job ends. */
  actor: AuditActor;
}

type Stores = { environments: EnvironmentStore; environmentDeletion: EnvironmentDeletionStore; work: WorkStore } & AuditTx;

/** Rows per batch (one transaction each): short transactions, so the edge never waits long on a deletion. */
export const DELETION_BATCH = 500;

/**
 * The durable deletion of an environment (issue 24 point 1). `queueIn` marks it DELETING and
 * writes the work item in the caller's transaction; from then on its credentials are refused
 * at the edge and the administration API answers reads with DELETING and refuses changes. The
 * work item erases the environment's rows table by table in the order of the registry
 * (db/schema/environment-deletion.ts), a batch per transaction, renewing its lease as it goes:
 * a process killed half-way leaves the item to be taken over once the lease lapses, and the
 * job resumes (deleting what is left is all there is to redo). The environment row goes last,
 * with the `environment.deleted` audit event, in one transaction.
 */
export function createEnvironmentDeletion(deps: { store: Stores & TxRunner<Stores>; clock: Clock; logger?: Logger; wake: () => void; batch?: number }) {
  const { store, clock } = deps;
  const batch = deps.batch ?? DELETION_BATCH;

  /** Marks the environment DELETING and queues its deletion, in the caller's transaction; false when it was DELETING already. */
  async function queueIn(tx: Stores & TxScope, env: EnvironmentRow, actor: AuditActor): Promise<boolean> {
    if ((await tx.environments.updateEnvironment(env.id, { status: 'DELETING' })) !== 1) return false;
    const at = clock.now();
    await insertWorkItemIn(tx, ENVIRONMENT_DELETION_WORK, { environmentId: env.id, actor } satisfies EnvironmentDeletionWork, at.getTime());
    await auditIn(tx, actor, 'environment.deletion_started', { type: 'environment', id: env.id }, { environmentId: env.id, name: env.name }, at.toISOString());
    tx.afterCommit(deps.wake);
    return true;
  }

  /** Runs the deletion to its end; false when the lease was lost (another process carries on). */
  async function run(w: EnvironmentDeletionWork, lease?: { renew(): Promise<boolean> }): Promise<boolean> {
    const env = await store.environments.findEnvironmentById(w.environmentId);
    // Done already (a repeat after the last step committed), or never marked (nothing to do).
    if (!env || env.status !== 'DELETING') return true;
    for (let step = 0; step < store.environmentDeletion.steps; step++) {
      for (;;) {
        const n = await store.tx((tx) => tx.environmentDeletion.deleteBatch(step, w.environmentId, batch));
        if (lease && !(await lease.renew())) return false;
        if (n < batch) break;
      }
    }
    await store.tx(async (tx) => {
      if (await tx.environments.deleteEnvironment(w.environmentId))
        await auditIn(tx, w.actor, 'environment.deleted', { type: 'environment', id: w.environmentId }, { environmentId: w.environmentId, name: env.name }, clock.now().toISOString());
    });
    deps.logger?.info('environment deleted', { environmentId: w.environmentId });
    return true;
  }

  return { queueIn, run };
}

export type EnvironmentDeletion = ReturnType<typeof createEnvironmentDeletion>;

/** The work kind: the job runs under the item's lease, renewed with each committed batch. */
export const environmentDeletionWork = (deletion: Pick<EnvironmentDeletion, 'run'>): WorkKind<EnvironmentDeletionWork> => ({
  kind: ENVIRONMENT_DELETION_WORK,
  retry: { baseMs: 5_000, capMs: 5 * 60_000, maxAttempts: 50 },
  async run(w, item) {
    if (!(await deletion.run(w, item.lease))) return { kind: 'retry', error: 'lease lost: another process carries the deletion on' };
  },
});
