import type { AuditEvent } from '../../platform/audit/audit';
import type { AdminStore } from './store';

export interface AuditQuery {
  tenantId?: string;
  action?: string;
  actorSubject?: string;
  /** ISO 8601 instants: from inclusive, to exclusive. */
  from?: string;
  to?: string;
  page: number;
  size: number;
}

type AuditReader = { list(q: AuditQuery): Promise<{ items: AuditEvent[]; hasMore: boolean }> };

/** The management API's own reads; every write goes through the identity services. */
export function createAdminService(deps: { store: { admin: AdminStore; audit: AuditReader } }) {
  const { store } = deps;
  return {
    /** Totals of the environment (spec 03 Overview, without federations: the federations context counts those). */
    overview: () => store.admin.overview(),
    /** `GET /audit-events` and `engage audit list`: newest first. */
    auditEvents: (q: AuditQuery) => store.audit.list(q),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
