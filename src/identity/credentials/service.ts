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
import type { AuditActor, AuditTx } from '../audit';

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

type Stores = { credentials: CredentialStore } & ResourceTx & AuditTx;
/** The stores a transaction that writes a credential must carry. */
export type CredentialTx = { credentials: CredentialStore };

/** Compared against when the credential id is unknown, so both paths do the same work. */
const NO_DIGEST = digest('no such credential');

export function createCredentialService(deps: { store: Stores & TxRunner<Stores>; catalog: () => number; clock: Clock; resources: ResourceService }) {
  const { store, clock } = deps;
  const found = new CatalogCache<CredentialWithResource>(deps.catalog);
  return {
    async issue(tenantId: string, resourceUri: string, actor: AuditActor): Promise<CredentialIssuance> {
      validInput(checkCredentialIssue, { resourceUri }, CredentialErrors.invalid);
      const id = newId();
      const secret = newSecret();
      const secretDigest = digest(secret);
      await store.tx(async (tx) => {
        const r = await deps.resources.readByUri(tenantId, resourceUri);
        assertThat(r, CredentialErrors.invalid(`resource ${resourceUri} is not registered`));
        await tx.credentials.insert({ id, tenantId, resourceId: r.id, secretDigest, createdAt: clock.now().toISOString() });
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'credential.issued', targetType: 'credential', targetId: id, details: { resourceUri } });
      });
      return { credentialId: id, credentialSecret: secret };
    },

    async list(tenantId: string): Promise<CredentialView[]> {
      return (await store.credentials.list(tenantId)).map((c) => ({ credentialId: c.id, resourceUri: c.resourceUri, status: c.status, createdAt: c.createdAt }));
    },

    /** A page of credentials (never their secrets). */
    async page(tenantId: string, page: number, size: number): Promise<{ items: CredentialView[]; hasMore: boolean }> {
      const rows = await store.credentials.listPage(tenantId, page * size, size + 1);
      return { items: rows.slice(0, size).map((c) => ({ credentialId: c.id, resourceUri: c.resourceUri, status: c.status, createdAt: c.createdAt })), hasMore: rows.length > size };
    },

    /**
     * Revocation, which DELETE /credentials/{credentialId} and `credentials delete` also are: the
     * credential stops authenticating at once and stays listed as REVOKED, so the audit trail
     * and the list keep naming it (docs/decisions.md "Management API").
     */
    async revoke(tenantId: string, credentialId: string, actor: AuditActor): Promise<void> {
      await store.tx(async (tx) => {
        // The revoke is conditional (ACTIVE only): when it changes nothing, read why.
        if ((await tx.credentials.revoke(tenantId, credentialId, clock.now().toISOString())) === 1) {
          await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'credential.revoked', targetType: 'credential', targetId: credentialId, details: {} });
          return;
        }
        const c = await tx.credentials.find(tenantId, credentialId);
        assertThat(c, CredentialErrors.transition(`no credential ${credentialId} in this tenant`));
        assertThat(!c.configurationManaged, CredentialErrors.configurationManaged(credentialId));
        throw CredentialErrors.transition(`credential ${credentialId} is already ${c.status}`);
      });
    },

    /** HTTP Basic of a resource server (introspection, revoke-application-grants). */
    async authenticate(tenantId: string, credentialId: string, secret: string): Promise<ResourceServer | undefined> {
      return verify(this.cached(tenantId, credentialId) ?? (await this.find(tenantId, credentialId)), secret);
    },

    /** The ACTIVE credential `engage apply` keeps for a resource (one per resource), if any. */
    managedOf: (tenantId: string, resourceId: string) => store.credentials.managedOf(tenantId, resourceId),

    /** `engage apply`, in its transaction: a secret given by the operator (its digest, as issued secrets are stored). */
    async setSecretDigestIn(tx: CredentialTx, tenantId: string, credentialId: string, secretDigest: string): Promise<void> {
      await tx.credentials.setSecretDigest(tenantId, credentialId, secretDigest);
    },

    /** The credential is configuration-managed from now on (revocation refuses it). */
    async markManagedIn(tx: CredentialTx, tenantId: string, credentialId: string): Promise<void> {
      await tx.credentials.markManaged(tenantId, credentialId);
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
