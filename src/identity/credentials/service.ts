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
      await store.tx((tx) => {
        const r = deps.resources.findByUriIn(tx, tenantId, resourceUri);
        assertThat(r, CredentialErrors.invalid(`resource ${resourceUri} is not registered`));
        tx.credentials.insert({ id, tenantId, resourceId: r.id, secretDigest: digest(secret), createdAt: clock.now().toISOString() });
      });
      return { credentialId: id, credentialSecret: secret };
    },

    list(tenantId: string): CredentialView[] {
      return store.credentials.list(tenantId).map((c) => ({ credentialId: c.id, resourceUri: c.resourceUri, status: c.status, createdAt: c.createdAt }));
    },

    async revoke(tenantId: string, credentialId: string): Promise<void> {
      await store.tx((tx) => {
        const c = tx.credentials.find(tenantId, credentialId);
        assertThat(c, CredentialErrors.transition(`no credential ${credentialId} in this tenant`));
        assertThat(c.status === 'ACTIVE', CredentialErrors.transition(`credential ${credentialId} is already ${c.status}`));
        tx.credentials.revoke(tenantId, credentialId, clock.now().toISOString());
      });
    },

    /** HTTP Basic of a resource server (introspection, revoke-application-grants). */
    authenticate(tenantId: string, credentialId: string, secret: string): ResourceServer | undefined {
      const row = found.get(`${tenantId} ${credentialId}`, () => store.credentials.findWithResource(tenantId, credentialId));
      const matches = safeEqual(digest(secret), row?.secretDigest ?? NO_DIGEST);
      if (!row || !matches || row.status !== 'ACTIVE' || row.resourceStatus !== 'ACTIVE') return undefined;
      return { credentialId: row.id, resourceUri: row.resourceUri, audience: row.resourceAudience };
    },
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
