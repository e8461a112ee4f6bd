import type { ResolvedTenant } from '../tenants/service';

/**
 * What the browser flow needs from the OAuth core (clients, users, codes, consent). The
 * adapter in authorize-routes.ts maps the OAuth-core services onto this; keeping the port
 * narrow keeps the flow testable and the wiring small.
 */
export interface BrowserClient {
  clientId: string;
  displayName: string;
  consentPolicy: 'EXPLICIT' | 'PRE_AUTHORIZED';
  status?: string;
}

export interface BrowserUser {
  id: string;
  email: string;
  status?: string;
}

export interface ValidRequest {
  client: BrowserClient;
  redirectUri: string;
  scope: string[];
  state?: string;
  nonce?: string;
  codeChallenge: string;
  resource?: string;
  prompt: string[];
  maxAge?: number;
  /** SHA-256 of the installation binding code the request carried (issue 24). */
  bindingCodeDigest?: string;
}

export type Validation =
  | { ok: true; request: ValidRequest }
  /** Unknown client or unregistered redirect_uri: never redirected (RFC 6749 §4.1.2.1). */
  | { ok: false; redirect: false; status: number; error: string; description?: string }
  | { ok: false; redirect: true; error: string; description?: string; redirectUri: string; state?: string };

export interface ConsentKey {
  tenantId: string;
  userId: string;
  clientId: string;
  scope: string[];
  resource?: string;
}

export interface BrowserOAuthPort {
  validate(tenant: ResolvedTenant, params: URLSearchParams): Promise<Validation>;
  findClient(tenantId: string, clientId: string): Promise<BrowserClient | undefined>;
  verifyPassword(tenantId: string, email: string, password: string): Promise<BrowserUser | undefined>;
  findUser(tenantId: string, userId: string): Promise<BrowserUser | undefined>;
  /** The audience of a registered resource, to name it on the consent page. */
  resourceName(tenantId: string, uri: string): Promise<string | undefined>;
  hasConsent(key: ConsentKey): Promise<boolean>;
  rememberConsent(key: ConsentKey): Promise<void>;
  issueCode(input: {
    tenantId: string;
    clientId: string;
    userId: string;
    redirectUri: string;
    codeChallenge: string;
    scope: string[];
    resource?: string;
    nonce?: string;
    authTime: number;
    bindingCodeDigest?: string;
  }): Promise<string>;
}

/**
 * Upstream sign-in through another tenant of this server (identity/federations): the options
 * shown on the sign-in page, the redirect that starts one, and the user it ends with.
 */
export interface UpstreamBroker {
  options(tenant: ResolvedTenant): Promise<{ source: string; label: string; issuer: string }[]>;
  begin(tenant: ResolvedTenant, input: { source: string; sessionId: string; interactionId: string }): Promise<string | undefined>;
  complete(
    tenant: ResolvedTenant,
    sessionId: string,
    params: URLSearchParams,
  ): Promise<{ ok: true; interactionId: string; userId: string; authTime: number } | { ok: false; reason: 'expired' | 'refused' | 'no_account'; source?: string }>;
}
