import { randomBytes } from 'node:crypto';
import type { Sql } from '../store/sql';
import type { Page } from '../http/pagination';
import type { AuditActor, AuditEvent, AuditEventInput, AuditFilter } from './audit';

const COLUMNS = `id, tenant_id AS "tenantId", environment_id AS "environmentId", actor_subject AS "actorSubject", actor_client_id AS "actorClientId", action,
  target_type AS "targetType", target_id AS "targetId", details, created_at AS "createdAt"`;

const INSERT = `INSERT INTO audit_events (id, tenant_id, actor_subject, actor_client_id, action, target_type, target_id, details, created_at, environment_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

type Raw = Omit<AuditEvent, 'details'> & { details: string };

/**
 * Event ids are UUIDv7 (RFC 9562 §5.7) with a counter in `rand_a` (§6.2 method 1): they sort
 * in the order this process wrote them, even within a millisecond, so events with equal
 * `created_at` still list newest first.
 */
let lastMs = 0;
let seq = 0;
export function auditEventId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    seq++;
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    seq = 0;
  }
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (seq >> 8);
  b[7] = seq & 0xff;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The filters' WHERE texts, built once per combination (each has an index: migration 0009). */
const listTexts = new Map<string, string>();
function listText(f: AuditFilter): string {
  const key = `${f.tenantId !== undefined}${f.environmentId !== undefined}${f.action !== undefined}${f.actorSubject !== undefined}${f.from !== undefined}${f.to !== undefined}`;
  let text = listTexts.get(key);
  if (text === undefined) {
    const where: string[] = [];
    if (f.tenantId !== undefined) where.push('tenant_id = @tenantId');
    if (f.environmentId !== undefined) where.push('environment_id = @environmentId');
    if (f.action !== undefined) where.push('action = @action');
    if (f.actorSubject !== undefined) where.push('actor_subject = @actorSubject');
    if (f.from !== undefined) where.push('created_at >= @from');
    if (f.to !== undefined) where.push('created_at < @to');
    text = `SELECT ${COLUMNS} FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`;
    listTexts.set(key, text);
  }
  return text;
}

/**
 * The audit trail (issue 11 point 4). Registered as `audit` in src/stores.ts, so a service
 * records inside its transaction — `await tx.audit.record(actor, {...})` — and the event
 * commits or rolls back with the change it describes.
 */
export function createAuditStore(db: Sql) {
  return {
    async record(actor: AuditActor, e: AuditEventInput): Promise<string> {
      const id = auditEventId();
      await db.run(INSERT, [
        id,
        e.tenantId,
        actor.subject,
        actor.clientId,
        e.action,
        e.targetType,
        e.targetId,
        JSON.stringify(e.details ?? {}),
        (e.at ?? new Date()).toISOString(),
        e.environmentId ?? null,
      ]);
      return id;
    },
    /** Newest first; a page of `size` (fetches size+1 rows to answer hasMore, no COUNT). */
    async list(f: AuditFilter): Promise<Page<AuditEvent>> {
      const params: Record<string, unknown> = { limit: f.size + 1, offset: f.page * f.size };
      if (f.tenantId !== undefined) params.tenantId = f.tenantId;
      if (f.environmentId !== undefined) params.environmentId = f.environmentId;
      if (f.action !== undefined) params.action = f.action;
      if (f.actorSubject !== undefined) params.actorSubject = f.actorSubject;
      if (f.from !== undefined) params.from = f.from;
      if (f.to !== undefined) params.to = f.to;
      const rows = await db.all<Raw>(listText(f), params);
      const items = rows.slice(0, f.size).map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
      return { items, page: f.page, size: f.size, hasMore: rows.length > f.size };
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
