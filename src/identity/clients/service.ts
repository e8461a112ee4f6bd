import { CatalogCache } from '../../platform/catalog';
import type { Clock } from '../../platform/clock';
import { digest, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { parseJsonList } from '../oauth/scopes';
import type { ResourceService, ResourceTx } from '../resources/service';
import { ClientErrors } from './errors';
import { CLIENT_CREDENTIALS, checkClientInput, checkClientPatch, type OptInGrant } from './schemas';
import { validInput } from '../../platform/http/schema';
import type { ClientChange, ClientRow, ClientStore } from './store';
import { onUnique } from '../../platform/store/sql';
import type { AuditActor, AuditTx } from '../audit';

/** A client with its lists parsed: what the protocol code works with. */
export interface Client extends Omit<ClientRow, 'redirectUris' | 'scopes' | 'webOrigins' | 'postLogoutRedirectUris' | 'grantTypes'> {
  redirectUris: string[];
  /** RP-initiated logout: where the browser may be sent back, compared exactly (issue 23). */
  postLogoutRedirectUris: string[];
  /** Grants opted in to beyond authorization_code and refresh_token (issue 23). */
  grantTypes: OptInGrant[];
  scopes: string[];
  /** Registered browser origins; null: the origins of its http(s) redirect URIs. */
  webOrigins: string[] | null;
  /** What webOrigins means: the origins whose pages may read this client's token, revocation and userinfo answers (CORS). */
  allowedOrigins: ReadonlySet<string>;
}

/** Client (request) of spec 03. */
export interface ClientInput {
  clientId: string;
  displayName: string;
  applicationType: ClientRow['applicationType'];
  tokenEndpointAuthMethod: ClientRow['tokenEndpointAuthMethod'];
  consentPolicy: ClientRow['consentPolicy'];
  redirectUris: string[];
  scopes: string[];
  defaultResource?: string | null;
  nativeAuthenticationEnabled?: boolean;
  /** Browser origins allowed by CORS; null or absent: the origins of the redirect URIs. */
  webOrigins?: string[] | null;
  /** Not in spec 03: RP-initiated logout's registered return URIs (absent: none). */
  postLogoutRedirectUris?: string[];
  /** Not in spec 03: grants opted in to beyond authorization_code and refresh_token (absent: none). */
  grantTypes?: OptInGrant[];
}

/** What `clients update` may change. */
export interface ClientPatch {
  webOrigins?: string[] | null;
  postLogoutRedirectUris?: string[];
  grantTypes?: OptInGrant[];
}

/** Client (list entry) of spec 03: never the secret. */
export interface ClientView extends Required<ClientInput> {
  status: ClientRow['status'];
  createdAt: string;
  configurationManaged: boolean;
}

export interface ClientIssuance {
  clientId: string;
  clientSecret: string | null;
}

/** Refused on a client that bootstrap configuration owns (`engage apply` passes allowManaged). */
export interface ManagedOption {
  allowManaged?: boolean;
}

/** What an audit event says of a client: its settings, never its secret. */
function auditDetails(input: ClientInput): Record<string, unknown> {
  return {
    displayName: input.displayName, applicationType: input.applicationType, tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
    consentPolicy: input.consentPolicy, redirectUris: input.redirectUris, scopes: input.scopes, defaultResource: input.defaultResource ?? null,
    nativeAuthenticationEnabled: input.nativeAuthenticationEnabled ?? false,
    ...(input.postLogoutRedirectUris?.length ? { postLogoutRedirectUris: input.postLogoutRedirectUris } : {}),
    ...(input.grantTypes?.length ? { grantTypes: input.grantTypes } : {}),
  };
}

type Stores = { clients: ClientStore } & ResourceTx & AuditTx;
/** The stores a transaction that writes a client must carry. */
export type ClientTx = { clients: ClientStore };


/** The origin of each http(s) redirect URI (private-use schemes have none). */
export function redirectOrigins(redirectUris: string[]): string[] {
  const out = new Set<string>();
  for (const u of redirectUris) {
    const url = URL.parse(u);
    if (url && (url.protocol === 'https:' || url.protocol === 'http:')) out.add(url.origin);
  }
  return [...out];
}

export function toClient(r: ClientRow): Client {
  const redirectUris = parseJsonList(r.redirectUris);
  const webOrigins = r.webOrigins === null ? null : parseJsonList(r.webOrigins);
  const postLogoutRedirectUris = r.postLogoutRedirectUris === null ? [] : parseJsonList(r.postLogoutRedirectUris);
  return { ...r, redirectUris, postLogoutRedirectUris, grantTypes: grantsOf(r), scopes: parseJsonList(r.scopes), webOrigins, allowedOrigins: new Set(webOrigins ?? redirectOrigins(redirectUris)) };
}

export function toClientView(r: ClientRow): ClientView {
  return {
    clientId: r.clientId,
    displayName: r.displayName,
    applicationType: r.applicationType,
    tokenEndpointAuthMethod: r.tokenEndpointAuthMethod,
    consentPolicy: r.consentPolicy,
    redirectUris: parseJsonList(r.redirectUris),
    scopes: parseJsonList(r.scopes),
    defaultResource: r.defaultResource,
    nativeAuthenticationEnabled: r.nativeAuthenticationEnabled,
    webOrigins: r.webOrigins === null ? null : parseJsonList(r.webOrigins),
    postLogoutRedirectUris: r.postLogoutRedirectUris === null ? [] : parseJsonList(r.postLogoutRedirectUris),
    grantTypes: grantsOf(r),
    status: r.status,
    createdAt: r.createdAt,
    configurationManaged: r.configurationManaged,
  };
}

/** A serialized origin as browsers send it (RFC 6454 §6.2): http(s), lower-case host, no default port, no path. */
function isWebOrigin(s: string): boolean {
  const url = URL.parse(s);
  return !!url && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === s;
}

function checkWebOrigins(webOrigins: string[] | null | undefined): void {
  const bad = webOrigins?.findIndex((o) => !isWebOrigin(o)) ?? -1;
  assertThat(bad < 0, () => ClientErrors.invalid(`webOrigins[${bad}]: must be an origin such as https://app.example.com (scheme, host and non-default port only)`));
}

const originList = (webOrigins: string[] | null | undefined) => (webOrigins === null || webOrigins === undefined ? null : JSON.stringify([...new Set(webOrigins)]));

const logoutList = (uris: string[] | undefined) => (uris?.length ? JSON.stringify([...new Set(uris)]) : null);

const grantList = (grants: string[] | undefined) => (grants?.length ? JSON.stringify([...new Set(grants)]) : null);

const grantsOf = (r: Pick<ClientRow, 'grantTypes'>): OptInGrant[] => (r.grantTypes === null ? [] : (parseJsonList(r.grantTypes) as OptInGrant[]));

/** RFC 6749 §4.4: the client credentials grant is for confidential clients only. */
function checkGrantTypes(grantTypes: string[] | undefined, authMethod: ClientRow['tokenEndpointAuthMethod']): void {
  assertThat(
    !grantTypes?.includes(CLIENT_CREDENTIALS) || authMethod === 'CLIENT_SECRET_BASIC',
    () => ClientErrors.invalid(`grantTypes: ${CLIENT_CREDENTIALS} needs a confidential client (tokenEndpointAuthMethod CLIENT_SECRET_BASIC)`),
  );
}

/** The stored columns of a client's settings (creation and replacement alike). */
function settingsOf(input: ClientInput) {
  return {
    displayName: input.displayName,
    applicationType: input.applicationType,
    tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
    consentPolicy: input.consentPolicy,
    redirectUris: JSON.stringify([...new Set(input.redirectUris)]),
    scopes: JSON.stringify([...new Set(input.scopes)]),
    defaultResource: input.defaultResource ?? null,
    nativeAuthenticationEnabled: input.nativeAuthenticationEnabled ?? false,
    webOrigins: originList(input.webOrigins),
    postLogoutRedirectUris: logoutList(input.postLogoutRedirectUris),
    grantTypes: grantList(input.grantTypes),
  };
}

export function createClientService(deps: { store: Stores & TxRunner<Stores>; catalog: () => number; clock: Clock; resources: ResourceService }) {
  const { store, clock } = deps;
  const found = new CatalogCache<Client>(deps.catalog);
  const tenantOrigins = new CatalogCache<ReadonlySet<string>>(deps.catalog);
  const tenantLogout = new CatalogCache<boolean>(deps.catalog);
  const tenantGrants = new CatalogCache<ReadonlySet<OptInGrant>>(deps.catalog);

  /** Changes one existing client; every change moves the catalog version channel, so every process sees it on its next request. */
  async function change(
    tenantId: string, clientId: string, patch: ClientChange, actor: AuditActor, details: Record<string, unknown>, opts: ManagedOption = {}, defaultResource: string | null = null,
  ): Promise<ClientView> {
    return store.tx(async (tx) => {
      const current = await tx.clients.find(tenantId, clientId);
      assertThat(current, ClientErrors.unknown(clientId));
      assertThat(opts.allowManaged || !current.configurationManaged, ClientErrors.configurationManaged(clientId));
      if (defaultResource) {
        const r = await deps.resources.readByUri(tenantId, defaultResource);
        assertThat(r && r.status === 'ACTIVE', ClientErrors.unknownResource(defaultResource));
      }
      await tx.clients.update(tenantId, clientId, { ...patch, updatedAt: clock.now().toISOString() });
      await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'client.updated', targetType: 'client', targetId: clientId, details });
      return toClientView((await tx.clients.find(tenantId, clientId))!);
    });
  }

  return {
    /** Registers a client; a confidential client's secret is returned here and never again. */
    async create(tenantId: string, input: ClientInput, actor: AuditActor): Promise<ClientIssuance> {
      validInput(checkClientInput, input, ClientErrors.invalid);
      checkWebOrigins(input.webOrigins);
      checkGrantTypes(input.grantTypes, input.tokenEndpointAuthMethod);
      const secret = input.tokenEndpointAuthMethod === 'CLIENT_SECRET_BASIC' ? newSecret() : null;
      await store.tx(async (tx) => {
        assertThat(!(await tx.clients.find(tenantId, input.clientId)), ClientErrors.conflict(`client ${input.clientId} exists`));
        if (input.defaultResource) {
          const r = await deps.resources.readByUri(tenantId, input.defaultResource);
          assertThat(r && r.status === 'ACTIVE', ClientErrors.unknownResource(input.defaultResource));
        }
        const now = clock.now().toISOString();
        await tx.clients.insert({
          tenantId,
          clientId: input.clientId,
          ...settingsOf(input),
          secretDigest: secret && digest(secret),
          createdAt: now,
          updatedAt: now,
        }).catch(onUnique(() => ClientErrors.conflict(`client ${input.clientId} exists`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'client.created', targetType: 'client', targetId: input.clientId, details: auditDetails(input) });
      });
      return { clientId: input.clientId, clientSecret: secret };
    },

    /**
     * PUT /tenants/{tenantId}/clients/{clientId} (spec 03): the same body as creation replaces
     * every setting. The secret is kept, as Keycloak and Auth0 keep it on update, so the answer's
     * clientSecret is null; a secret is issued (and shown this once) only when a public client
     * becomes confidential, and dropped when a confidential one becomes public
     * (docs/decisions.md "Management API").
     */
    async replace(tenantId: string, clientId: string, input: ClientInput, actor: AuditActor, opts: ManagedOption = {}): Promise<ClientIssuance> {
      validInput(checkClientInput, input, ClientErrors.invalid);
      assertThat(input.clientId === clientId, ClientErrors.invalid('clientId: must be the client id of the path (a client id cannot change)'));
      checkWebOrigins(input.webOrigins);
      checkGrantTypes(input.grantTypes, input.tokenEndpointAuthMethod);
      const current = await store.clients.find(tenantId, clientId);
      assertThat(current, ClientErrors.unknown(clientId));
      const confidential = input.tokenEndpointAuthMethod === 'CLIENT_SECRET_BASIC';
      const secret = confidential && current.secretDigest === null ? newSecret() : null;
      await change(
        tenantId,
        clientId,
        {
          ...settingsOf(input),
          secretDigest: confidential ? (secret ? digest(secret) : undefined) : null,
        },
        actor,
        auditDetails(input),
        opts,
        input.defaultResource ?? null,
      );
      return { clientId, clientSecret: secret };
    },

    /** A page of clients (never their secrets). */
    async page(tenantId: string, page: number, size: number): Promise<{ items: ClientView[]; hasMore: boolean }> {
      const rows = await store.clients.listPage(tenantId, page * size, size + 1);
      return { items: rows.slice(0, size).map(toClientView), hasMore: rows.length > size };
    },

    async list(tenantId: string): Promise<ClientView[]> {
      return (await store.clients.list(tenantId)).map(toClientView);
    },

    /** `clients update`: for now the browser origins (null: back to the redirect URIs' origins). */
    async update(tenantId: string, clientId: string, patch: ClientPatch, actor: AuditActor): Promise<ClientView> {
      validInput(checkClientPatch, patch, ClientErrors.invalid);
      checkWebOrigins(patch.webOrigins);
      const webOrigins = patch.webOrigins === undefined ? {} : { webOrigins: originList(patch.webOrigins) };
      const logout = patch.postLogoutRedirectUris === undefined ? {} : { postLogoutRedirectUris: logoutList(patch.postLogoutRedirectUris) };
      const grants = patch.grantTypes === undefined ? {} : { grantTypes: grantList(patch.grantTypes) };
      if (patch.grantTypes !== undefined) {
        const current = await store.clients.find(tenantId, clientId);
        assertThat(current, ClientErrors.unknown(clientId));
        checkGrantTypes(patch.grantTypes, current.tokenEndpointAuthMethod);
      }
      const details = {
        ...(patch.webOrigins === undefined && (patch.postLogoutRedirectUris !== undefined || patch.grantTypes !== undefined) ? {} : { webOrigins: patch.webOrigins ?? null }),
        ...(patch.postLogoutRedirectUris === undefined ? {} : { postLogoutRedirectUris: patch.postLogoutRedirectUris }),
        ...(patch.grantTypes === undefined ? {} : { grantTypes: patch.grantTypes }),
      };
      return change(tenantId, clientId, { ...webOrigins, ...logout, ...grants }, actor, details);
    },

    /**
     * `engage apply` and the control tenant's system objects, in the caller's transaction (with
     * its audit event): a managed client's settings as declared (lists as stored: JSON), ACTIVE.
     */
    async replaceManagedIn(tx: ClientTx, tenantId: string, clientId: string, settings: Omit<ClientChange, 'status' | 'secretDigest'>): Promise<void> {
      await tx.clients.update(tenantId, clientId, { ...settings, status: 'ACTIVE' });
    },

    /** A secret given by the operator (its digest, as issued secrets are stored; null for a public client), in the caller's transaction. */
    async setSecretDigestIn(tx: ClientTx, tenantId: string, clientId: string, secretDigest: string | null, at: string): Promise<void> {
      await tx.clients.update(tenantId, clientId, { secretDigest, updatedAt: at });
    },

    /** The client is configuration-managed from now on (the management API refuses to change it). */
    async markManagedIn(tx: ClientTx, tenantId: string, clientId: string): Promise<void> {
      await tx.clients.update(tenantId, clientId, { configurationManaged: true });
    },

    /** Replaces the redirect URIs of an internal client whose callbacks follow another tenant's issuers (federations). */
    async setRedirectUris(tenantId: string, clientId: string, redirectUris: string[], actor: AuditActor): Promise<ClientView> {
      const uris = [...new Set(redirectUris)];
      return change(tenantId, clientId, { redirectUris: JSON.stringify(uris) }, actor, { redirectUris: uris });
    },

    /**
     * A DISABLED client can't authenticate or start an authorization, and its live access tokens
     * are inactive at introspection and userinfo from the next request (see introspection.ts).
     */
    async setStatus(tenantId: string, clientId: string, status: ClientRow['status'], actor: AuditActor): Promise<ClientView> {
      return change(tenantId, clientId, { status }, actor, { status });
    },

    /**
     * May a page of `origin` read an answer about `clientId` (CORS)? Only when that ACTIVE
     * client allows it. With no such client (none named, unknown, disabled), any origin that an
     * ACTIVE client of the tenant allows: what a preflight is answered for, before the client is
     * known, and what lets such a page read the error (docs/decisions.md).
     */
    async allowsOrigin(tenantId: string, clientId: string | null | undefined, origin: string): Promise<boolean> {
      const client = clientId ? await this.find(tenantId, clientId) : undefined;
      if (client && client.status === 'ACTIVE') return client.allowedOrigins.has(origin);
      return (await this.originsOfTenant(tenantId)).has(origin);
    },

    /** Every origin some ACTIVE client of the tenant allows; cached until the catalogue changes. */
    async originsOfTenant(tenantId: string): Promise<ReadonlySet<string>> {
      return (await tenantOrigins.get(tenantId, async () => {
        const all = new Set<string>();
        for (const r of await store.clients.list(tenantId)) if (r.status === 'ACTIVE') for (const o of toClient(r).allowedOrigins) all.add(o);
        return all;
      }))!;
    },

    /**
     * Does the tenant offer RP-initiated logout? Only once an ACTIVE client of it registered a
     * post-logout redirect URI (issue 23): until then discovery stays exactly spec 02's.
     */
    async offersRpLogout(tenantId: string): Promise<boolean> {
      return (await tenantLogout.get(tenantId, async () => (await store.clients.list(tenantId)).some((r) => r.status === 'ACTIVE' && r.postLogoutRedirectUris !== null)))!;
    },

    /**
     * The opt-in grants (issue 23) some ACTIVE client of the tenant registered: discovery names
     * them (and the device authorization endpoint) only then, so it otherwise stays spec 02's.
     */
    async grantsOffered(tenantId: string): Promise<ReadonlySet<OptInGrant>> {
      return (await tenantGrants.get(tenantId, async () => new Set((await store.clients.list(tenantId)).filter((r) => r.status === 'ACTIVE').flatMap(grantsOf))))!;
    },

    /** The client, from the catalogue cache (synchronous on a hit: try `cached` first on hot paths). */
    find(tenantId: string, clientId: string): Promise<Client | undefined> {
      return found.get(`${tenantId} ${clientId}`, async () => {
        const r = await store.clients.find(tenantId, clientId);
        return r && toClient(r);
      });
    },

    /** The client if the catalogue cache holds it (no database work); else use `find`. */
    cached(tenantId: string, clientId: string): Client | undefined {
      return found.peek(`${tenantId} ${clientId}`);
    },
  };
}

export type ClientService = ReturnType<typeof createClientService>;
