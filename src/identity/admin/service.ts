import type { AuditEvent, AuditFilter } from '../../platform/audit/audit';
import type { AdminStore } from './store';

type AuditReader = { list(q: AuditFilter): Promise<{ items: AuditEvent[]; hasMore: boolean }> };

/** The management API's own reads; every write goes through the identity services. */
export function createAdminService(deps: { store: { admin: AdminStore; audit: AuditReader } }) {
  const { store } = deps;
  return {
    /** Totals of the environment (spec 03 Overview, without federations: the federations context counts those). */
    overview: () => store.admin.overview(),
    /** `GET /audit-events` and `engage audit list`: newest first. */
    auditEvents: (q: AuditFilter) => store.audit.list(q),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
