import type { Clock } from '../../platform/clock';
import type { TxRunner } from '../../platform/store/store';
import { auditIn, type AuditActor, type AuditTx } from '../shared/audit';
import type { MessagingMarkStore } from './managed-store';

type Stores = { messagingMarks: MessagingMarkStore } & AuditTx;

/**
 * `engage apply` marks the templates and test groups it declares configuration-managed (issue
 * 24); the template and test-group services then refuse changes without `allowManaged`.
 */
export function createMessagingApplyService(deps: { store: Stores & TxRunner<Stores>; clock: Clock }) {
  const { store, clock } = deps;
  const mark = (environmentId: string, actor: AuditActor, action: string, target: { type: string; id: string }, write: (tx: Stores) => Promise<boolean>) =>
    store.tx(async (tx) => {
      if (!(await write(tx))) return false;
      await auditIn(tx, actor, action, target, { environmentId, source: 'apply', changes: ['adopt'] }, clock.now().toISOString());
      return true;
    });
  return {
    markTemplate: (environmentId: string, templateId: string, actor: AuditActor) =>
      mark(environmentId, actor, 'template.configuration_managed', { type: 'template', id: templateId }, (tx) => tx.messagingMarks.markTemplate(environmentId, templateId)),
    markTestGroup: (environmentId: string, groupId: string, actor: AuditActor) =>
      mark(environmentId, actor, 'test_group.configuration_managed', { type: 'test_group', id: groupId }, (tx) => tx.messagingMarks.markTestGroup(environmentId, groupId)),
  };
}

export type MessagingApplyService = ReturnType<typeof createMessagingApplyService>;
