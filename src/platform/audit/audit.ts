import os from 'node:os';

/**
 * Who made a change (issue 11 point 4): the token's subject and client over HTTP, the
 * operating-system user on the CLI (`os:<name>`, client null).
 */
export interface AuditActor {
  subject: string;
  clientId: string | null;
}

/** The stores a transaction that records audit events carries (the `audit` store of src/stores.ts). */
export interface AuditTx {
  audit: { record(actor: AuditActor, event: AuditEventInput): Promise<unknown> };
}

/** The CLI's actor: the operating-system user running the command. */
export function cliActor(): AuditActor {
  let name: string | undefined;
  try {
    name = os.userInfo().username;
  } catch {
    // No passwd entry for the uid (containers): the CLI still runs.
  }
  return { subject: `os:${name || 'unknown'}`, clientId: null };
}

/**
 * One audit event to record. `action` is dotted, past tense, lowercase (`tenant.created`,
 * `directory.role_assignment.revoked`); `tenantId` null for environment-wide events; `details`
 * never holds a secret (no client or credential secret, password, code, token or key).
 */
export interface AuditEventInput {
  tenantId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details?: Record<string, unknown>;
  /** The engagement environment the event is about (issue 24); absent: none. */
  environmentId?: string | null;
  /** Default: now. Services with an injected clock pass `clock.now()`. */
  at?: Date;
}

/** An audit event as read back (the management API's `GET /audit-events` entry, plus tenantId). */
export interface AuditEvent {
  id: string;
  tenantId: string | null;
  environmentId: string | null;
  actorSubject: string;
  actorClientId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
  createdAt: string;
}

export interface AuditFilter {
  tenantId?: string;
  environmentId?: string;
  action?: string;
  actorSubject?: string;
  /** Inclusive lower bound, RFC 3339 (compared as stored: ISO 8601 UTC with milliseconds). */
  from?: string;
  /** Exclusive upper bound. */
  to?: string;
  page: number;
  size: number;
}
