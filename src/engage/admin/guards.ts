import type { Context, MiddlewareHandler } from 'hono';
import { ENGAGE_ADMIN_API, type EngageAdminScope } from '../../platform/operator-apis';
import type { AppEnv } from '../../platform/http/request';
import type { AuditActor } from '../shared/audit';
import type { EnvironmentRow } from '../environments/service';
import { EnvironmentErrors } from '../environments/errors';
import { EngageAdminErrors } from './errors';

/** Who called: the subject and client of a live control-issuer token for `engage-admin-api` (set by the app's authentication). */
export interface EngageAdminPrincipal {
  /** The control tenant, whose directory holds the operator's permissions. */
  tenantId: string;
  subject: string;
  clientId: string;
  scope: string;
}

export type EngageAdminEnv = {
  Variables: AppEnv['Variables'] & {
    principal: EngageAdminPrincipal;
    /** The environment the path names (`:environmentId`, its id or name), set by the guard. */
    environment: EnvironmentRow;
    /** For a listing route (`guard(scope, 'listing')`): the environments the operator holds the scope on. */
    visibleEnvironments: EnvironmentRow[];
    /** Whether the operator holds the route's permission unscoped (every environment), not only narrowed to this one. */
    unscoped: boolean;
  };
};

/**
 * A route's guard: `guard(scope)` checks the scope and the live permission, on the path's
 * environment when it names one, else unscoped; `guard(scope, 'listing')` (a route listing
 * environments) passes an operator holding the scope on at least one environment and sets
 * `visibleEnvironments`.
 */
export type EngageAdminGuard = (scope: EngageAdminScope, kind?: 'listing') => MiddlewareHandler<EngageAdminEnv>;

export interface EngageAdminGuardDeps {
  /** A live control-issuer token for audience `engage-admin-api` (401 invalid_token otherwise); sets `principal`. */
  authenticate: MiddlewareHandler;
  /** The operator's live directory permission `key` in the control tenant (checked at every request). */
  hasPermission: (principal: EngageAdminPrincipal, key: string) => Promise<boolean>;
  /** The environment a path names, by id or name; undefined when there is none. */
  findEnvironment: (ref: string) => Promise<EnvironmentRow | undefined>;
  /** Every environment, for listing routes. */
  listEnvironments: () => Promise<EnvironmentRow[]>;
}

const { read, manage } = ENGAGE_ADMIN_API.scopes;
const hasScope = (granted: string, scope: string) => granted.split(' ').includes(scope);

/** The scopes that satisfy a route's scope: `engage.admin.manage` implies `engage.admin.read`. */
export const acceptedScopes = (scope: EngageAdminScope): EngageAdminScope[] => (scope === read ? [read, manage] : [scope]);

/**
 * The permission check of the engagement administration API (docs/decisions.md "Environment
 * and identity"): the token must carry the route's scope (403 insufficient_scope naming it),
 * and its subject must hold, live, the permission of the same name either unscoped (every
 * environment) or narrowed to the path's environment by its name (`engage.admin.manage:prod`)
 * or id (for a name that is no valid permission key);
 * otherwise 403 access_denied. The permission is checked before the environment is looked up,
 * and an unknown environment is 403 as well for an operator without the unscoped permission,
 * so an operator scoped to some environments learns nothing about the others.
 */
export function createEngageAdminGuard(deps: EngageAdminGuardDeps): EngageAdminGuard {
  const cache = new Map<string, MiddlewareHandler<EngageAdminEnv>>();
  return (scope, kind) => {
    let guard = cache.get(`${scope} ${kind}`);
    if (guard) return guard;
    const accepted = acceptedScopes(scope);
    const check: MiddlewareHandler<EngageAdminEnv> = async (c, next) => {
      const p = c.get('principal');
      const held = accepted.filter((s) => hasScope(p.scope, s));
      if (held.length === 0) throw EngageAdminErrors.insufficientScope(scope);
      const ref = c.req.param('environmentId');
      let unscoped = false;
      for (const s of held) if (await deps.hasPermission(p, s)) unscoped = true;
      if (kind === 'listing') {
        const all = await deps.listEnvironments();
        const visible = unscoped ? all : await visibleTo(deps, p, all, held);
        if (visible.length === 0 && !unscoped) throw EngageAdminErrors.accessDenied(held[0]);
        c.set('visibleEnvironments', visible);
        return next();
      }
      if (ref === undefined) {
        if (!unscoped) throw EngageAdminErrors.accessDenied(held[0]);
        return next();
      }
      const env = await deps.findEnvironment(ref);
      let allowed = unscoped;
      if (!allowed && env) for (const s of held) if ((await deps.hasPermission(p, `${s}:${env.name}`)) || (await deps.hasPermission(p, `${s}:${env.id}`))) allowed = true;
      if (!allowed) throw EngageAdminErrors.accessDenied(held[0]);
      if (!env) throw EnvironmentErrors.unknownEnvironment(ref);
      // A DELETING environment answers reads (its status says DELETING) and refuses every change (issue 24 point 1).
      if (env.status === 'DELETING' && scope !== read) throw EnvironmentErrors.environmentDeleting(env.name);
      c.set('environment', env);
      c.set('unscoped', unscoped);
      return next();
    };
    // Authentication first: 401 before anything about the request is looked at.
    guard = async (c, next) => {
      await deps.authenticate(c, async () => {
        await check(c, next);
      });
    };
    cache.set(`${scope} ${kind}`, guard);
    return guard;
  };
}

/** The environments on which the operator holds one of `scopes` narrowed to the environment (by name or id). */
async function visibleTo(deps: Pick<EngageAdminGuardDeps, 'hasPermission'>, principal: EngageAdminPrincipal, envs: EnvironmentRow[], scopes: string[]): Promise<EnvironmentRow[]> {
  const out: EnvironmentRow[] = [];
  for (const e of envs) {
    for (const s of scopes) {
      if ((await deps.hasPermission(principal, `${s}:${e.name}`)) || (await deps.hasPermission(principal, `${s}:${e.id}`))) {
        out.push(e);
        break;
      }
    }
  }
  return out;
}

/** The audit actor of the request: the token's subject and client. */
export const adminActor = (c: Context<EngageAdminEnv>): AuditActor => ({ subject: c.get('principal').subject, clientId: c.get('principal').clientId });
