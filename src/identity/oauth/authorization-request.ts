import { safeErrorDescription } from '../../platform/http/error-description';
import type { ResolvedTenant } from '../tenants/service';
import type { Client } from '../clients/service';
import { DEVICE_CODE } from '../clients/schemas';
import type { Resource } from '../resources/service';
import { E } from './errors';
import { redirectUriRegistered } from './redirect-uri';
import { OIDC_SCOPES, SCOPE_TOKEN, parseScope } from './scopes';

/**
 * Validation of an authorization request (GET /oauth2/authorize and the native adapter's
 * interactions), as small named checks in the order of spec 02's authorize table.
 * Nothing here writes; the caller decides what to render.
 */

export type AuthorizationParams = URLSearchParams | Record<string, string | string[] | undefined>;

export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scope: string[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string;
  /** The resource the tokens are for (requested, or the client's default), or null. */
  resource: string | null;
  prompt: string[];
  maxAge: number | null;
  /** An installation binding code of the engagement half (issue 24): the code exchange binds that installation to the user. */
  bindingCode: string | null;
}

/** Unknown client or unregistered redirect_uri: never redirected (spec 02). */
export interface DirectError {
  ok: false;
  redirect: false;
  status: number;
  error: string;
  description: string;
}

/** Every other error goes back to the (trusted) callback with state and iss. */
export interface RedirectError {
  ok: false;
  redirect: true;
  error: string;
  description: string;
  redirectUri: string;
  state: string | null;
}

export type AuthorizationValidation = { ok: true; request: AuthorizationRequest } | DirectError | RedirectError;

export interface AuthorizationLookups {
  findClient(tenantId: string, clientId: string): Promise<Client | undefined>;
  findResource(tenantId: string, uri: string): Promise<Resource | undefined>;
  /** The tenant's resources (any status): asked only when scopes come without a resource. */
  listResources(tenantId: string): Promise<readonly { scopes: readonly string[] }[]>;
}

/** Parameters whose repetition is an error (RFC 6749 §3.1: "MUST NOT be included more than once"). */
const SINGLE = [
  'client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method',
  'nonce', 'resource', 'prompt', 'max_age', 'response_mode', 'login_hint', 'ui_locales', 'display', 'id_token_hint', 'request', 'request_uri',
  'binding_code',
];
/** An installation binding code as the engagement half issues it (`svc_bind_` and base64url), with room to spare. */
const BINDING_CODE = /^[A-Za-z0-9_-]{1,256}$/;
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

class Rejection {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {}
}

function toMap(params: AuthorizationParams): Map<string, string[]> {
  const m = new Map<string, string[]>();
  if (params instanceof URLSearchParams) {
    for (const [k, v] of params) m.set(k, [...(m.get(k) ?? []), v]);
  } else {
    for (const [k, v] of Object.entries(params)) if (v !== undefined) m.set(k, Array.isArray(v) ? v : [v]);
  }
  // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
  for (const [k, v] of m) {
    const present = v.filter((x) => x !== '');
    if (present.length === 0) m.delete(k);
    else m.set(k, present);
  }
  return m;
}

/** A single-valued parameter, or a rejection when it is repeated. */
function one(m: Map<string, string[]>, name: string): string | null {
  const v = m.get(name);
  if (!v) return null;
  if (v.length > 1) throw new Rejection(E.invalidRequest, `${name} is duplicated`);
  return v[0];
}

function required(m: Map<string, string[]>, name: string): string {
  const v = one(m, name);
  if (v === null) throw new Rejection(E.invalidRequest, `${name} is required`);
  return v;
}

function checkDuplicates(m: Map<string, string[]>): void {
  for (const name of SINGLE) one(m, name);
}

function checkResponseType(m: Map<string, string[]>): void {
  const rt = required(m, 'response_type');
  if (rt !== 'code') throw new Rejection(E.unsupportedResponseType, 'response_type must be code');
  const mode = one(m, 'response_mode');
  if (mode !== null && mode !== 'query') throw new Rejection(E.invalidRequest, 'response_mode must be query');
  if (m.has('request')) throw new Rejection(E.invalidRequest, 'request objects are not supported');
  if (m.has('request_uri')) throw new Rejection(E.invalidRequest, 'request_uri is not supported');
}

/** PKCE is mandatory and S256 only (spec 02); an absent method would mean "plain". */
function checkPkce(m: Map<string, string[]>): string {
  const challenge = required(m, 'code_challenge');
  const method = one(m, 'code_challenge_method');
  if (method !== 'S256') throw new Rejection(E.invalidRequest, 'code_challenge_method must be S256');
  if (!S256_CHALLENGE.test(challenge)) throw new Rejection(E.invalidRequest, 'code_challenge is not an S256 challenge');
  return challenge;
}

function checkScope(m: Map<string, string[]>, client: Client): string[] {
  const raw = required(m, 'scope');
  const scope = parseScope(raw);
  if (scope.length === 0 || !scope.every((s) => SCOPE_TOKEN.test(s))) throw new Rejection(E.invalidRequest, 'scope is malformed');
  const registered = new Set(client.scopes);
  const missing = scope.filter((s) => !registered.has(s));
  if (missing.length) throw new Rejection(E.invalidScope, `scope not registered for the client: ${missing.join(' ')}`);
  return scope;
}

/**
 * RFC 8707. A resource is available to a client when it is ACTIVE and is either the client's
 * defaultResource or shares at least one scope with the client's registered scopes.
 * Without a resource parameter the client's defaultResource applies (or none).
 */
export function resourceAvailable(client: Client, resource: Resource | undefined): resource is Resource {
  if (!resource || resource.status !== 'ACTIVE') return false;
  if (client.defaultResource === resource.uri) return true;
  const clientScopes = new Set(client.scopes);
  return resource.scopes.some((s) => clientScopes.has(s));
}

async function checkResource(m: Map<string, string[]>, tenantId: string, client: Client, lookups: AuthorizationLookups): Promise<Resource | null> {
  const requested = one(m, 'resource');
  const uri = requested ?? client.defaultResource;
  if (uri === null) return null;
  if (requested !== null && (requested.includes('#') || !URL.canParse(requested)))
    throw new Rejection(E.invalidTarget, 'resource must be an absolute URI without a fragment');
  const resource = await lookups.findResource(tenantId, uri);
  if (!resourceAvailable(client, resource)) throw new Rejection(E.invalidTarget, `resource ${uri} is not available to the client`);
  return resource;
}

/** Scopes other than the OpenID Connect ones must belong to the resource (spec 02 native table: "for the client and resource"). */
async function checkScopeForResource(scope: string[], resource: Resource | null, tenantId: string, lookups: AuthorizationLookups): Promise<void> {
  const api = scope.filter((s) => !OIDC_SCOPES.has(s));
  if (api.length === 0) return;
  if (!resource) {
    // A scope no resource of the tenant offers names no resource: naming one would not help,
    // so it is invalid_scope (RFC 6749 §4.1.2.1: "unknown"), never invalid_target (issue 23).
    const offered = new Set((await lookups.listResources(tenantId)).flatMap((r) => r.scopes));
    const unknown = api.filter((s) => !offered.has(s));
    if (unknown.length) throw new Rejection(E.invalidScope, `scope is not an OpenID Connect scope nor a resource's: ${unknown.join(' ')}`);
    // Spec 02: invalid_target when "the requested resource is absent".
    throw new Rejection(E.invalidTarget, `scope needs a resource: ${api.join(' ')}`);
  }
  const own = new Set(resource.scopes);
  const foreign = api.filter((s) => !own.has(s));
  if (foreign.length) throw new Rejection(E.invalidScope, `scope not offered by ${resource.uri}: ${foreign.join(' ')}`);
}

function checkPrompt(m: Map<string, string[]>): string[] {
  const prompt = parseScope(one(m, 'prompt'));
  if (!prompt.every((p) => PROMPTS.has(p))) throw new Rejection(E.invalidRequest, 'prompt has an unsupported value');
  if (prompt.includes('none') && prompt.length > 1) throw new Rejection(E.invalidRequest, 'prompt=none cannot be combined');
  return prompt;
}

function checkMaxAge(m: Map<string, string[]>): number | null {
  const v = one(m, 'max_age');
  if (v === null) return null;
  if (!/^\d{1,10}$/.test(v)) throw new Rejection(E.invalidRequest, 'max_age must be a non-negative integer');
  return Number(v);
}

/** Where the device verification page's sign-in returns (RFC 8628, issue 23): under the issuer, for clients registered for the device grant. */
export const deviceCallbackUri = (issuer: string) => `${issuer}/oauth2/device/callback`;

const deviceCallbackOf = (tenant: ResolvedTenant, client: Client, redirectUri: string) =>
  client.grantTypes.includes(DEVICE_CODE) && redirectUri === deviceCallbackUri(tenant.issuer);

export async function validateAuthorizationRequest(tenant: ResolvedTenant, params: AuthorizationParams, lookups: AuthorizationLookups): Promise<AuthorizationValidation> {
  const m = toMap(params);
  const tenantId = tenant.tenant.id;
  const direct = (error: string, description: string): DirectError => ({ ok: false, redirect: false, status: 400, error, description });

  // 1. Client and callback: until both are trusted nothing is redirected.
  const clientIds = m.get('client_id');
  if (!clientIds) return direct(E.invalidRequest, 'client_id is required');
  if (clientIds.length > 1) return direct(E.invalidRequest, 'client_id is duplicated');
  const client = await lookups.findClient(tenantId, clientIds[0]);
  if (!client || client.status !== 'ACTIVE') return direct(E.invalidClient, 'unknown client');
  const redirectUris = m.get('redirect_uri');
  if (!redirectUris) return direct(E.invalidRequest, 'redirect_uri is required');
  if (redirectUris.length > 1) return direct(E.invalidRequest, 'redirect_uri is duplicated');
  const redirectUri = redirectUris[0];
  if (!redirectUriRegistered(client, redirectUri) && !deviceCallbackOf(tenant, client, redirectUri)) return direct(E.invalidRequest, 'redirect_uri is not registered for the client');

  // 2. Everything else is reported to the callback, with state when it is unambiguous.
  const states = m.get('state');
  const state = states && states.length === 1 ? states[0] : null;
  try {
    checkDuplicates(m);
    checkResponseType(m);
    const codeChallenge = checkPkce(m);
    const scope = checkScope(m, client);
    const resource = await checkResource(m, tenantId, client, lookups);
    await checkScopeForResource(scope, resource, tenantId, lookups);
    const prompt = checkPrompt(m);
    const maxAge = checkMaxAge(m);
    const bindingCode = one(m, 'binding_code');
    if (bindingCode !== null && !BINDING_CODE.test(bindingCode)) throw new Rejection(E.invalidRequest, 'binding_code is malformed');
    return {
      ok: true,
      request: { client, redirectUri, scope, state, nonce: one(m, 'nonce'), codeChallenge, resource: resource?.uri ?? null, prompt, maxAge, bindingCode },
    };
  } catch (e) {
    if (!(e instanceof Rejection)) throw e;
    return { ok: false, redirect: true, error: e.error, description: e.description, redirectUri, state };
  }
}

/**
 * The callback URL with code or error, state and iss (RFC 9207), keeping the URI's own query;
 * error_description held to RFC 6749 §4.1.2.1's characters.
 */
export function authorizationRedirect(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined) url.searchParams.append(k, k === 'error_description' ? safeErrorDescription(v) : v);
  }
  return url.toString();
}
