import type { EnvironmentRow } from './store';

/** An environment as the administration API and the CLI show it (admin-routes.ts `Environment`). */
export const environmentView = (e: EnvironmentRow) => ({
  id: e.id,
  name: e.name,
  displayName: e.displayName ?? e.name,
  status: e.status,
  identityTenantId: e.identityTenantId ?? null,
  configurationManaged: e.configurationManaged === 1,
  createdAt: e.createdAt,
});
