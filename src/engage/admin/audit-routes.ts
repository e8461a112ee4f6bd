import type { AuditEvent as AuditEventRow, AuditFilter } from '../../platform/audit/audit';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { pageOf, pageQuery } from '../../platform/http/pagination';
import { DateTime, Nullable, parseDateTime, T } from '../../platform/http/schema';
import { oneQuery } from './query';
import { EngageAdminErrors } from './errors';
import { adminDoc, adminRoute, type EngageAdminRoutes } from './routing';

const { read } = ENGAGE_ADMIN_API.scopes;

/** An audit event: the shape of the management API's GET /audit-events entries. */
export const AuditEvent = T.Object(
  {
    id: T.String({ format: 'uuid' }),
    tenantId: Nullable(T.String({ format: 'uuid', description: 'null: engagement events are environment-wide' })),
    environmentId: Nullable(T.String({ format: 'uuid', description: 'the environment the event is about' })),
    actorSubject: T.String({ description: 'the token subject, or os:<user> for the CLI' }),
    actorClientId: Nullable(T.String()),
    action: T.String({ description: 'dotted, past tense: app.created, access_key.rotated, profile.erased, …' }),
    targetType: T.String(),
    targetId: T.String(),
    details: T.Record(T.String(), T.Unknown(), { description: 'what changed; never a secret' }),
    createdAt: DateTime(),
  },
  { additionalProperties: false },
);
export const AuditEventPage = pageOf(AuditEvent);

const QUERY = new Set(['page', 'size', 'action', 'actor', 'from', 'to']);
const time = (name: string) => (v: string[]) => {
  const s = oneQuery(name)(v);
  if (s === undefined) return undefined;
  const ms = parseDateTime(s);
  if (Number.isNaN(ms)) throw EngageAdminErrors.invalid(`${name}: must be an RFC 3339 date-time`);
  return new Date(ms).toISOString();
};

/**
 * The engagement audit trail of one environment (issue 24 point 6): the events the audit
 * trail holds with this environment (platform/audit; the same events GET
 * /identity/admin/audit-events lists to identity administrators), with its filters, newest
 * first. Reading it needs engage.admin.read on the environment, so an operator narrowed to one
 * environment sees its events and no other's.
 */
export function auditAdminRoutes(deps: { auditEvents: (f: AuditFilter) => Promise<{ items: AuditEventRow[]; hasMore: boolean }> }): EngageAdminRoutes {
  return (admin, guard) => {
    admin.get('/environments/:environmentId/audit-events', guard(read), adminRoute(
      adminDoc('A page of the audit events about the environment, newest first, optionally filtered', {
        params: { environmentId: T.String({ minLength: 1, maxLength: 100, description: 'the environment id or name' }) },
        query: {
          ...pageQuery,
          action: { schema: T.String(), description: 'only this action (app.created, profile.erased, …)', read: oneQuery('action') },
          actor: { schema: T.String(), description: "only this actor subject (a token's sub, or os:<user> for the CLI)", read: oneQuery('actor') },
          from: { schema: DateTime(), description: 'only events at or after this time (RFC 3339)', read: time('from') },
          to: { schema: DateTime(), description: 'only events before this time (RFC 3339)', read: time('to') },
        },
        responses: { 200: { description: 'a page of audit events', schema: AuditEventPage } },
        errors: { 400: 'invalid_request' },
      }),
      async (c, { query: q }) => {
        const unknown = Object.keys(c.req.queries()).find((k) => !QUERY.has(k));
        if (unknown !== undefined) throw EngageAdminErrors.invalid(`${unknown}: not a filter (action, actor, from, to, page, size)`);
        const r = await deps.auditEvents({ environmentId: c.get('environment').id, action: q.action, actorSubject: q.actor, from: q.from, to: q.to, page: q.page, size: q.size });
        return c.json({ items: r.items, page: q.page, size: q.size, hasMore: r.hasMore });
      },
    ));
  };
}
