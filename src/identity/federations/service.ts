import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Clock } from '../../platform/clock';
import { digest, newSecret, s256, type Sealer } from '../../platform/crypto';
import type { AuditActor } from '../../platform/audit/audit';
import type { AuditStore } from '../../platform/audit/store';
import { SYSTEM_ACTOR } from '../audit';
import type { Page, PageRequest } from '../../platform/http/pagination';
import type { TxRunner } from '../../platform/store/store';
import type { ClientService } from '../clients/service';
import type { KeyService } from '../keys/service';
import { authenticateClient } from '../oauth/client-auth';
import { parseForm } from '../oauth/form';
import type { OAuthService } from '../oauth/service';
import type { ProviderService } from '../providers/service';
import type { ResolvedTenant, TenantService } from '../tenants/service';
import { FederationErrors } from './errors';
import type { FederationRow, FederationStore } from './store';

type Stores = { federations: FederationStore; audit: AuditStore };
/** A tenant row as the tenants service hands it out. */
type TenantRow = Awaited<ReturnType<TenantService['get']>>;

/** Spec 03 "Federation entry". */
export interface FederationView {
  sourceTenantId: string;
  targetTenantId: string;
  sourceIssuer: string;
  targetIssuer: string;
  status: string;
  createdAt: string;
}

/** A source tenant offered on the target's sign-in page. */
export interface FederationOption {
  source: string;
  label: string;
  issuer: string;
}

/** The end of a brokered sign-in at the target: the user, or why there is none. */
export type BrokerResult = { ok: true; interactionId: string; userId: string; authTime: number } | { ok: false; reason: 'expired' | 'refused' | 'no_account'; source?: string };

/** Where the source issuer sends the browser back (under the target issuer). */
export const CALLBACK_PATH = '/oauth2/authorize/federation/callback';
/** A brokered sign-in must come back within this many seconds. */
const LOGIN_TTL = 600;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Federations (issue 11 point 3, docs/decisions.md "Federations"): a federation from a source
 * tenant to a target tenant lets the source's users sign in at the target issuer through the
 * source issuer, by OpenID Connect brokering between two tenants of one server (as Keycloak
 * brokers between realms). Creating one registers an internal confidential client in the
 * source tenant whose only redirect URI is the target's callback; a sign-in is an authorization
 * code flow with PKCE from the target to the source issuer, the code exchanged with that client's
 * secret and the ID token verified against the source's keys; the person is linked by (source
 * issuer, subject). Deleting the federation disables the client and ends sign-ins under way.
 */
export function createFederationService(deps: {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  masterKey: Buffer;
  tenants: TenantService;
  clients: ClientService;
  oauth: OAuthService;
  keys: KeyService;
  providers: ProviderService;
}) {
  const { store, clock, tenants } = deps;
  // PKCE verifiers and nonces are derived from the state, so nothing secret is stored.
  const brokerKey = Buffer.from(hkdfSync('sha256', deps.masterKey, Buffer.alloc(0), 'engage federation broker v1', 32));
  const derive = (what: string, state: string) => createHmac('sha256', brokerKey).update(`${what}|${state}`).digest('base64url');
  const aad = (sourceTenantId: string, targetTenantId: string) => `federation|${sourceTenantId}|${targetTenantId}`;
  const resolved = (t: TenantRow): ResolvedTenant => ({ tenant: t, issuer: tenants.issuerOf(t) });
  const callbackOf = (targetIssuer: string) => `${targetIssuer}${CALLBACK_PATH}`;
  /** The target's callback under each issuer it answers on: its managed one and its custom one, if set. */
  const callbacksOf = (target: TenantRow) => [...new Set([tenants.managedIssuerOf(target), tenants.issuerOf(target)])].map(callbackOf);

  /** A tenant by id (the management API) or, from the CLI, slug. */
  async function tenant(ref: string, byIdOnly: boolean): Promise<TenantRow> {
    if (typeof ref !== 'string' || (byIdOnly && !UUID.test(ref))) throw FederationErrors.invalid('tenant ids must be UUIDs');
    try {
      return await tenants.get(ref);
    } catch {
      throw FederationErrors.unknownTenant(ref);
    }
  }

  async function view(f: { sourceTenantId: string; targetTenantId: string; status: string; createdAt: string }): Promise<FederationView> {
    const [s, t] = [await tenants.get(f.sourceTenantId), await tenants.get(f.targetTenantId)];
    return { sourceTenantId: f.sourceTenantId, targetTenantId: f.targetTenantId, sourceIssuer: tenants.issuerOf(s), targetIssuer: tenants.issuerOf(t), status: f.status, createdAt: f.createdAt };
  }

  return {
    async list(page: PageRequest): Promise<Page<FederationView>> {
      const p = await store.federations.list(page);
      const items: FederationView[] = [];
      for (const f of p.items) items.push(await view(f));
      return { ...p, items };
    },

    countActive: () => store.federations.countActive(),

    /** `byIdOnly`: the management API names tenants by id; the CLI by slug or id. */
    async create(sourceRef: string, targetRef: string, actor: AuditActor, opts: { byIdOnly?: boolean } = {}): Promise<FederationView> {
      const source = await tenant(sourceRef, !!opts.byIdOnly);
      const target = await tenant(targetRef, !!opts.byIdOnly);
      if (source.id === target.id) throw FederationErrors.invalid('a tenant cannot federate with itself');
      // A sign-in through a federation links to the target's user with the same verified email:
      // into the control tenant, whoever administers the source could sign in as any operator.
      if (target.isControl) throw FederationErrors.invalid('the control tenant cannot be a federation target: its users are the operators, who sign in with its own credentials');
      if (await store.federations.find(source.id, target.id)) throw FederationErrors.conflict(`${source.slug} is federated to ${target.slug} already`);
      // A new client per federation: a deleted federation's client stays disabled.
      const clientId = `federation-${target.slug}-${randomBytes(4).toString('hex')}`;
      const issued = await deps.clients.create(source.id, {
        clientId,
        displayName: `Sign-in at ${target.slug}`,
        applicationType: 'WEB',
        tokenEndpointAuthMethod: 'CLIENT_SECRET_BASIC',
        consentPolicy: 'PRE_AUTHORIZED',
        redirectUris: callbacksOf(target),
        scopes: ['openid', 'email'],
      }, actor);
      const at = clock.now();
      const row: FederationRow = {
        sourceTenantId: source.id,
        targetTenantId: target.id,
        status: 'ACTIVE',
        clientId,
        clientSecretSealed: deps.sealer.seal(issued.clientSecret!, aad(source.id, target.id)),
        createdAt: at.toISOString(),
      };
      const inserted = await store.tx(async (tx) => {
        if (!(await tx.federations.insert(row))) return false;
        await tx.audit.record(actor, {
          tenantId: null, action: 'federation.created', targetType: 'federation', targetId: `${source.id}/${target.id}`,
          details: { sourceTenantId: source.id, targetTenantId: target.id, clientId }, at,
        });
        return true;
      });
      if (!inserted) {
        // A concurrent create won: its client serves; this one is never used.
        await deps.clients.setStatus(source.id, clientId, 'DISABLED', actor);
        throw FederationErrors.conflict(`${source.slug} is federated to ${target.slug} already`);
      }
      return view(row);
    },

    async remove(sourceRef: string, targetRef: string, actor: AuditActor, opts: { byIdOnly?: boolean } = {}): Promise<void> {
      const source = await tenant(sourceRef, !!opts.byIdOnly);
      const target = await tenant(targetRef, !!opts.byIdOnly);
      const at = clock.now();
      const row = await store.tx(async (tx) => {
        const f = await tx.federations.find(source.id, target.id);
        if (!f || !(await tx.federations.remove(source.id, target.id))) throw FederationErrors.conflict(`${source.slug} is not federated to ${target.slug}`);
        await tx.federations.removeLoginsOf(source.id, target.id);
        await tx.audit.record(actor, {
          tenantId: null, action: 'federation.deleted', targetType: 'federation', targetId: `${source.id}/${target.id}`,
          details: { sourceTenantId: source.id, targetTenantId: target.id, clientId: f.clientId }, at,
        });
        return f;
      });
      // The source issuer refuses the client from now on (and its tokens at introspection).
      await deps.clients.setStatus(source.id, row.clientId, 'DISABLED', actor);
    },

    /** The sources offered on `target`'s sign-in page ("Sign in with <source>"). */
    async options(target: ResolvedTenant): Promise<FederationOption[]> {
      const out: FederationOption[] = [];
      // A federation into the control tenant made before it was refused is never offered nor run.
      if (target.tenant.isControl) return out;
      for (const f of await store.federations.intoTarget(target.tenant.id)) {
        const s = await tenants.get(f.sourceTenantId);
        if (s.status === 'ACTIVE') out.push({ source: s.slug, label: s.slug, issuer: tenants.issuerOf(s) });
      }
      return out;
    },

    /**
     * Starts a brokered sign-in for an interaction of the target's browser session: the URL of
     * the source's authorization endpoint (OIDC Core 3.1.2.1, PKCE S256), or undefined when the
     * source is not federated to the target.
     */
    async begin(target: ResolvedTenant, input: { source: string; sessionId: string; interactionId: string }): Promise<string | undefined> {
      let source: TenantRow;
      try {
        source = await tenants.get(input.source);
      } catch {
        return undefined;
      }
      const f = await store.federations.find(source.id, target.tenant.id);
      if (!f || f.status !== 'ACTIVE' || source.status !== 'ACTIVE' || target.tenant.isControl) return undefined;
      // The target's issuers may have changed since (a custom issuer set, changed or cleared):
      // its callbacks follow them before the source is asked to redirect to one.
      const client = await deps.clients.find(source.id, f.clientId);
      const callbacks = callbacksOf(target.tenant);
      if (client && !sameMembers(client.redirectUris, callbacks)) await deps.clients.setRedirectUris(source.id, f.clientId, callbacks, SYSTEM_ACTOR);
      const state = newSecret();
      const now = clock.nowSeconds();
      await store.tx(async (tx) => {
        await tx.federations.sweepLogins(now);
        await tx.federations.insertLogin({
          stateDigest: digest(state), targetTenantId: target.tenant.id, sourceTenantId: source.id, sessionId: input.sessionId, interactionId: input.interactionId, expiresAt: now + LOGIN_TTL,
        });
      });
      const url = new URL(`${tenants.issuerOf(source)}/oauth2/authorize`);
      const params: Record<string, string> = {
        response_type: 'code',
        client_id: f.clientId,
        redirect_uri: callbackOf(target.issuer),
        scope: 'openid email',
        state,
        nonce: derive('nonce', state),
        code_challenge: s256(derive('pkce', state)),
        code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return url.toString();
    },

    /**
     * The callback at the target: the state (one use, this browser session, not expired), the
     * `iss` of RFC 9207, the code exchanged at the source with the client's secret and the PKCE
     * verifier, the ID token verified against the source's keys, then the linked or new user of
     * the target.
     */
    async complete(target: ResolvedTenant, sessionId: string, params: URLSearchParams): Promise<BrokerResult> {
      const state = params.get('state') ?? '';
      const login = state ? await store.federations.findLogin(target.tenant.id, digest(state)) : undefined;
      if (!login || login.sessionId !== sessionId || login.expiresAt <= clock.nowSeconds()) return { ok: false, reason: 'expired' };
      if (!(await store.tx((tx) => tx.federations.consumeLogin(target.tenant.id, login.stateDigest)))) return { ok: false, reason: 'expired' };
      const f = await store.federations.find(login.sourceTenantId, target.tenant.id);
      const source = await tenants.get(login.sourceTenantId).catch(() => undefined);
      if (!f || f.status !== 'ACTIVE' || !source || source.status !== 'ACTIVE' || target.tenant.isControl) return { ok: false, reason: 'refused' };
      const sourceIssuer = tenants.issuerOf(source);
      const refused = { ok: false as const, reason: 'refused' as const, source: source.slug };
      const code = params.get('code');
      // RFC 9207 §2.4: the response must come from the issuer the request went to.
      if (!code || params.get('error') || params.get('iss') !== sourceIssuer) return refused;
      try {
        const secret = deps.sealer.open(f.clientSecretSealed, aad(source.id, target.tenant.id));
        const basic = `Basic ${Buffer.from(`${encodeURIComponent(f.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
        // The source's token endpoint, called in process: the same client authentication, one-use code and PKCE check.
        const client = await authenticateClient(deps.clients, source.id, parseForm(''), basic, sourceIssuer);
        const tokens = await deps.oauth.exchangeAuthorizationCode(resolved(source), client, {
          code, redirectUri: callbackOf(target.issuer), codeVerifier: derive('pkce', state), resource: null,
        });
        const { payload } = await jwtVerify(tokens.id_token ?? '', createLocalJWKSet(await deps.keys.jwks(source.id) as Parameters<typeof createLocalJWKSet>[0]), {
          issuer: sourceIssuer, audience: f.clientId, currentDate: clock.now(), requiredClaims: ['sub', 'iat', 'exp'],
        });
        if (payload.nonce !== derive('nonce', state)) return refused;
        const user = await deps.providers.brokeredUser(target.tenant.id, {
          issuer: sourceIssuer, subject: payload.sub!, email: payload.email, emailVerified: payload.email_verified, provider: `federation:${source.slug}`,
        });
        if (!user) return { ok: false, reason: 'no_account', source: source.slug };
        return { ok: true, interactionId: login.interactionId, userId: user.userId, authTime: clock.nowSeconds() };
      } catch {
        return refused;
      }
    },
  };
}

export type FederationService = ReturnType<typeof createFederationService>;

const sameMembers = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
