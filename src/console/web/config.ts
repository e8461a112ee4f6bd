import type { ApiName } from './scopes';

export type { ApiName };

/** What the server wrote into the page (src/console/serve.ts): nothing secret. */
export interface ConsoleConfig {
  base: string;
  issuer: string;
  clientId: string;
}

function read(): ConsoleConfig {
  const meta = document.querySelector('meta[name="engage-console"]');
  return JSON.parse(meta?.getAttribute('content') ?? '{}') as ConsoleConfig;
}

export const config = read();

/** The two administration APIs' roots, also their RFC 8707 resource URIs. */
export const API_ROOT: Record<ApiName, string> = {
  identity: `${config.issuer}/identity/admin`,
  engage: `${config.issuer}/engage/admin`,
};
export { API_SCOPES } from './scopes';
