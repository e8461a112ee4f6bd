import { CatalogCache } from '../../platform/catalog';
import type { Clock } from '../../platform/clock';
import { digest, newSecret } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { SCOPE_TOKEN, parseJsonList } from '../oauth/scopes';
import type { ResourceService, ResourceTx } from '../resources/service';
import { ClientErrors } from './errors';
import type { ClientRow, ClientStore } from './store';

/** A client with its lists parsed: what the protocol code works with. */
export interface Client extends Omit<ClientRow, 'redirectUris' | 'scopes'> {
  redirectUris: string[];
  scopes: string[];
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

type Stores = { clients: ClientStore } & ResourceTx;

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

export function toClient(r: ClientRow): Client {
  return { ...r, redirectUris: parseJsonList(r.redirectUris), scopes: parseJsonList(r.scopes) };
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
    status: r.status,
    createdAt: r.createdAt,
    configurationManaged: r.configurationManaged,
  };
}

/** Registered redirect URIs are compared exactly (spec 02): absolute, no fragment. */
function isRedirectUri(s: string): boolean {
  try {
    const u = new URL(s);
    return !s.includes('#') && u.protocol !== 'javascript:' && u.protocol !== 'data:';
  } catch {
    return false;
  }
}

function validate(input: ClientInput): void {
  const bad = (cond: boolean, msg: string) => assertThat(cond, ClientErrors.invalid(msg));
  bad(typeof input.clientId === 'string' && CLIENT_ID.test(input.clientId), 'clientId must be 1-128 characters of letters, digits, ".", "_", "~" or "-"');
  bad(typeof input.displayName === 'string' && input.displayName.trim().length > 0 && input.displayName.length <= 200, 'displayName must be a non-empty string');
  bad(['WEB', 'NATIVE'].includes(input.applicationType), 'applicationType must be WEB or NATIVE');
  bad(['CLIENT_SECRET_BASIC', 'NONE'].includes(input.tokenEndpointAuthMethod), 'tokenEndpointAuthMethod must be CLIENT_SECRET_BASIC or NONE');
  bad(['EXPLICIT', 'PRE_AUTHORIZED'].includes(input.consentPolicy), 'consentPolicy must be EXPLICIT or PRE_AUTHORIZED');
  bad(Array.isArray(input.redirectUris) && input.redirectUris.length > 0 && input.redirectUris.every((u) => typeof u === 'string' && isRedirectUri(u)), 'redirectUris must be absolute URIs without fragments');
  bad(Array.isArray(input.scopes) && input.scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s)), 'scopes must be scope tokens');
}

export function createClientService(deps: { store: Stores & TxRunner<Stores>; catalog: () => number; clock: Clock; resources: ResourceService }) {
  const { store, clock } = deps;
  const found = new CatalogCache<Client>(deps.catalog);
  return {
    /** Registers a client; a confidential client's secret is returned here and never again. */
    async create(tenantId: string, input: ClientInput): Promise<ClientIssuance> {
      validate(input);
      const secret = input.tokenEndpointAuthMethod === 'CLIENT_SECRET_BASIC' ? newSecret() : null;
      await store.tx((tx) => {
        assertThat(!tx.clients.find(tenantId, input.clientId), ClientErrors.conflict(`client ${input.clientId} exists`));
        if (input.defaultResource) {
          const r = deps.resources.findByUriIn(tx, tenantId, input.defaultResource);
          assertThat(r && r.status === 'ACTIVE', ClientErrors.unknownResource(input.defaultResource));
        }
        const now = clock.now().toISOString();
        tx.clients.insert({
          tenantId,
          clientId: input.clientId,
          displayName: input.displayName,
          applicationType: input.applicationType,
          tokenEndpointAuthMethod: input.tokenEndpointAuthMethod,
          consentPolicy: input.consentPolicy,
          redirectUris: JSON.stringify([...new Set(input.redirectUris)]),
          scopes: JSON.stringify([...new Set(input.scopes)]),
          defaultResource: input.defaultResource ?? null,
          nativeAuthenticationEnabled: input.nativeAuthenticationEnabled ?? false,
          secretDigest: secret && digest(secret),
          createdAt: now,
          updatedAt: now,
        });
      });
      return { clientId: input.clientId, clientSecret: secret };
    },

    list(tenantId: string): ClientView[] {
      return store.clients.list(tenantId).map(toClientView);
    },

    find(tenantId: string, clientId: string): Client | undefined {
      return found.get(`${tenantId} ${clientId}`, () => {
        const r = store.clients.find(tenantId, clientId);
        return r && toClient(r);
      });
    },
  };
}

export type ClientService = ReturnType<typeof createClientService>;
