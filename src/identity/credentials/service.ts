import { CatalogCache } from '../../platform/catalog';
import type { Clock } from '../../platform/clock';
import { digest, newId, newSecret, safeEqual } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { checkCredentialIssue } from '../resources/schemas';
import { validInput } from '../../platform/http/schema';
import { CredentialErrors } from '../resources/errors';
import type { ResourceService, ResourceTx } from '../resources/service';
import type { CredentialStore, CredentialWithResource } from './store';

/** Credential list entry of spec 03 (never the secret). */
export interface CredentialView {
  credentialId: string;
  resourceUri: string;
  status: 'ACTIVE' | 'REVOKED';
  createdAt: string;
}

export interface CredentialIssuance {
  credentialId: string;
  credentialSecret: string;
}

/** An authenticated resource server: the resource its credential was issued for. */
export interface ResourceServer {
  credentialId: string;
  resourceUri: string;
  audience: string;
}

type Stores = { credentials: CredentialStore } & ResourceTx;

/** Compared against when the credential id is unknown, so both paths do the same work. */
const NO_DIGEST = digest('no such credential');

export function createCredentialService(deps: { store: Stores & TxRunner<Stores>; catalog: () => number; clock: Clock; resources: ResourceService }) {
  const { store, clock } = deps;
  const found = new CatalogCache<CredentialWithResource>(deps.catalog);
  return {
    async issue(tenantId: string, resourceUri: string): Promise<CredentialIssuance> {
      validInput(checkCredentialIssue, { resourceUri }, CredentialErrors.invalid);
      const id = newId();
      const secret = newSecret();
      const secretDigest = digest(secret);
      await store.tx(async (tx) => {
        const r = await deps.resources.findByUriIn(tx, tenantId, resourceUri);
        assertThat(r, CredentialErrors.invalid(`resource ${resourceUri} is not registered`));
        await tx.credentials.insert({ id, tenantId, resourceId: r.id, secretDigest, createdAt: clock.now().toISOString() });
      });
      return { credentialId: id, credentialSecret: secret };
    },

    async list(tenantId: string): Promise<CredentialView[]> {
      return (await store.credentials.list(tenantId)).map((c) => ({ credentialId: c.id, resourceUri: c.resourceUri, status: c.status, createdAt: c.createdAt }));
    },

    async revoke(tenantId: string, credentialId: string): Promise<void> {
      await store.tx(async (tx) => {
        // The revoke is conditional (ACTIVE only): when it changes nothing, read why.
        if ((await tx.credentials.revoke(tenantId, credentialId, clock.now().toISOString())) === 1) return;
        const c = await tx.credentials.find(tenantId, credentialId);
        assertThat(c, CredentialErrors.transition(`no credential ${credentialId} in this tenant`));
        throw CredentialErrors.transition(`credential ${credentialId} is already ${c.status}`);
      });
    },

    /** HTTP Basic of a resource server (introspection, revoke-application-grants). */
    async authenticate(tenantId: string, credentialId: string, secret: string): Promise<ResourceServer | undefined> {
      return verify(this.cached(tenantId, credentialId) ?? (await this.find(tenantId, credentialId)), secret);
    },

    /** The credential and its resource, from the catalogue cache (try `cached` first on hot paths). */
    find(tenantId: string, credentialId: string): Promise<CredentialWithResource | undefined> {
      return found.get(`${tenantId} ${credentialId}`, () => store.credentials.findWithResource(tenantId, credentialId));
    },

    /** The credential if the catalogue cache holds it (no database work); else use `find`. */
    cached(tenantId: string, credentialId: string): CredentialWithResource | undefined {
      return found.peek(`${tenantId} ${credentialId}`);
    },

    verify,
  };
}

/**
 * The resource server a presented secret authenticates, given its credential as found (or
 * undefined): the same work whether or not the credential exists, so timing does not tell.
 */
function verify(row: CredentialWithResource | undefined, secret: string): ResourceServer | undefined {
  const matches = safeEqual(digest(secret), row?.secretDigest ?? NO_DIGEST);
  if (!row || !matches || row.status !== 'ACTIVE' || row.resourceStatus !== 'ACTIVE') return undefined;
  return { credentialId: row.id, resourceUri: row.resourceUri, audience: row.resourceAudience };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
