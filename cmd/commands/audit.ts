import type { Command } from 'commander';
import { AdminErrors } from '../../src/identity/admin/errors';
import { parseDateTime } from '../../src/platform/http/schema';
import { parsePageRequest } from '../../src/platform/http/pagination';
import { action, output, withCommon, withServices, type CommonOptions } from '../cli';

type Opts = CommonOptions & { tenant?: string; environment?: string; action?: string; actor?: string; from?: string; to?: string; page?: string; size?: string };

const COLUMNS = ['createdAt', 'action', 'actorSubject', 'actorClientId', 'targetType', 'targetId', 'tenantId', 'environmentId', 'details'];

/** RFC 3339, as GET /audit-events takes it; stored as ISO 8601 UTC. */
function instant(name: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const ms = parseDateTime(v);
  if (Number.isNaN(ms)) throw AdminErrors.invalid(`${name}: must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z`);
  return new Date(ms).toISOString();
}

/** `engage audit list`: the audit trail as GET /audit-events shows it, newest first. */
export function registerAudit(program: Command): void {
  const audit = program.command('audit').description('the audit trail of management changes (HTTP and CLI)');
  withCommon(audit.command('list').description('audit events, newest first'))
    .option('--tenant <tenant>', 'only events of this tenant (slug or id)')
    .option('--environment <env>', 'only events about this engagement environment (name or id), as GET /engage/admin/environments/{env}/audit-events')
    .option('--action <action>', 'only this action, e.g. tenant.updated')
    .option('--actor <subject>', "only this actor: a token's subject, or os:<user> for the CLI")
    .option('--from <time>', 'only events at or after this RFC 3339 time')
    .option('--to <time>', 'only events before this RFC 3339 time')
    .option('--page <n>', 'zero-based page (default 0)')
    .option('--size <n>', 'events per page, 1 to 200 (default 50)')
    .action(
      action(async (opts: Opts) => {
        const q = new URLSearchParams();
        if (opts.page !== undefined) q.set('page', opts.page);
        if (opts.size !== undefined) q.set('size', opts.size);
        const page = parsePageRequest(q);
        const from = instant('from', opts.from);
        const to = instant('to', opts.to);
        await withServices(opts, async ({ services, json }) => {
          const tenantId = opts.tenant ? (await services.tenants.get(opts.tenant)).id : undefined;
          const environmentId = opts.environment ? (await services.engage.environments.resolve(opts.environment)).id : undefined;
          const r = await services.admin.auditEvents({ tenantId, environmentId, action: opts.action, actorSubject: opts.actor, from, to, ...page });
          if (json) output(true, r);
          else {
            output(false, r.items, COLUMNS);
            if (r.hasMore) process.stderr.write(`more events: --page ${page.page + 1}\n`);
          }
        });
      }),
    );
}
