import type { AuditActor, AuditTx } from '../../platform/audit/audit';

export type { AuditActor, AuditTx };

/**
 * Records an engagement change in the audit trail (platform/audit), in the transaction of the
 * change: an environment-wide event (no tenant), its actor the CLI's `os:<user>` or a token's
 * subject. `details` never holds a secret (no app key, access key or provider key). The event's
 * environment (issue 24: `GET /engage/admin/audit-events?environment=`) is `details.environmentId`,
 * or the target itself when it is an environment.
 */
export function auditIn(tx: AuditTx, actor: AuditActor, action: string, target: { type: string; id: string }, details: Record<string, unknown>, at: string): Promise<unknown> {
  const environmentId = typeof details.environmentId === 'string' ? details.environmentId : target.type === 'environment' ? target.id : null;
  return tx.audit.record(actor, { tenantId: null, environmentId, action, targetType: target.type, targetId: target.id, details, at: new Date(at) });
}
