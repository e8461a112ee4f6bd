import type { Context, MiddlewareHandler } from 'hono';
import { readJsonBody } from '../../platform/http/body';
import { MAX_BODY_BYTES } from '../../platform/http/request';
import { validInput, type Checker, type Static, type TSchema } from '../../platform/http/schema';
import { actorOf, type AuditActor } from '../audit';
import { hasScope } from '../oauth/scopes';
import type { UserAccessTokenClaims } from '../oauth/tokens';
import type { ResolvedTenant } from '../tenants/service';
import { createTokenGuards, type TokenEnv } from '../token-guards';
import { AdminErrors } from './errors';
import { ADMIN_AUDIENCE, ADMIN_SCOPES, type AdminScope } from './schemas';

export type AdminEnv = TokenEnv;

/** What the guards need: the live token check and the operator's live directory permission in the control tenant. */
export interface AdminGuardDeps {
  liveAccessToken: (tenant: ResolvedTenant, token: string) => Promise<UserAccessTokenClaims | undefined>;
  /** `services.directory.hasPermission` (contracts §1). */
  hasPermission: (tenantId: string, subject: string, key: string) => Promise<boolean>;
}

/** A route's guard: the middleware to put before its handler. */
export type AdminGuard = (scope: AdminScope) => MiddlewareHandler<AdminEnv>;

/**
 * The management API's guard per route (spec 03 "Authentication"): a live access token of the
 * control tenant (the only issuer the API is served under) for audience `identity-admin-api`
 * (401 invalid_token otherwise), carrying the route's scope (403 insufficient_scope naming it),
 * whose subject holds the directory permission of the same name in the control tenant, read
 * on every request (403 access_denied), so removing it takes effect while the token lives.
 * `identity.admin.manage` implies `identity.admin.read` (contracts §1): a read accepts either
 * scope together with its own permission. Export for the routes other branches mount
 * (federations, user transfers): `guard(ADMIN_SCOPES.usersImport)`.
 */
export function createAdminGuard(deps: AdminGuardDeps): AdminGuard {
  const tokens = createTokenGuards({ liveAccessToken: deps.liveAccessToken, hasPermission: (p, key) => deps.hasPermission(p.tenantId, p.subject, key) });
  // Audience and liveness only; the scope and permission are checked together below.
  const bearer = tokens.bearerToken({ audience: () => ADMIN_AUDIENCE, scopes: [] });
  const cache = new Map<AdminScope, MiddlewareHandler<AdminEnv>>();
  return (scope) => {
    let chain = cache.get(scope);
    if (chain) return chain;
    const accepted: AdminScope[] = scope === ADMIN_SCOPES.read ? [ADMIN_SCOPES.read, ADMIN_SCOPES.manage] : [scope];
    const permitted: MiddlewareHandler<AdminEnv> = async (c, next) => {
      const p = c.get('principal');
      const held = accepted.filter((s) => hasScope(p.scope, s));
      if (held.length === 0) throw AdminErrors.insufficientScope(scope);
      for (const s of held) if (await deps.hasPermission(p.tenantId, p.subject, s)) return next();
      throw AdminErrors.accessDenied(held[0]);
    };
    chain = async (c, next) => {
      await bearer(c, async () => {
        await permitted(c, next);
      });
    };
    cache.set(scope, chain);
    return chain;
  };
}

/** The audit actor of the request: the token's subject and client. */
export const actor = (c: Context<AdminEnv>): AuditActor => actorOf(c.get('principal'));

/** The JSON body, checked against the route's schema (400 invalid_request naming the field). */
export async function jsonBody<S extends TSchema>(c: Context, check: Checker<S>): Promise<Static<S>> {
  const value = await readJsonBody(c, { maxBytes: MAX_BODY_BYTES, fail: AdminErrors.body });
  return validInput(check, value, AdminErrors.invalid);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path identifier that must be a uuid (400 invalid_request: "bad identifier"). */
export function uuidParam(c: Context, name: string): string {
  const v = c.req.param(name) ?? '';
  if (!UUID.test(v)) throw AdminErrors.invalid(`${name}: must be a uuid`);
  return v.toLowerCase();
}
