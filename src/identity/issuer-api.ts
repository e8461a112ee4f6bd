import type { Hono } from 'hono';
import { ApiError } from '../platform/http/errors';
import { createFamilyApp } from '../platform/http/family';
import { resolveTenant, type IssuerEnv } from './issuer';
import type { TenantService } from './tenants/service';

/** The issuer-scoped prefixes that answer in the api family (spec 02 native, spec 03, the engagement administration API). */
export const ISSUER_API_PREFIXES = ['/oauth2/native/*', '/identity/*', '/engage/*'] as const;

/**
 * The api family under an issuer: the native adapter (`{issuer}/oauth2/native`), the directory
 * (`{issuer}/identity/directory`) and the management API (`{control_issuer}/identity/admin`)
 * mount their routes here. An unknown issuer is `{error: unknown_tenant}` (spec 02, spec 03).
 */
export function createIssuerApiApp(tenants: TenantService, mount: (app: Hono<IssuerEnv>) => void = () => {}): Hono<IssuerEnv> {
  const api = createFamilyApp<IssuerEnv>('api', { prefixes: ISSUER_API_PREFIXES });
  const resolve = resolveTenant(tenants, () => new ApiError(404, 'unknown_tenant'));
  for (const p of ISSUER_API_PREFIXES) api.app.use(p, resolve);
  mount(api.app);
  return api.close();
}
