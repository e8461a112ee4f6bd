import { CatalogCache } from '../../platform/catalog';
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import { parseJsonList } from '../oauth/scopes';
import { ResourceErrors } from './errors';
import { checkResourceInput } from './schemas';
import { validInput } from '../../platform/http/schema';
import type { ResourceRow, ResourceStore } from './store';
import { onUnique } from '../../platform/store/sql';
import type { AuditActor, AuditTx } from '../audit';

/** The Resource object of spec 03. */
export interface ResourceView {
  uri: string;
  audience: string;
  status: ResourceRow['status'];
  scopes: string[];
}

export interface Resource extends Omit<ResourceRow, 'scopes'> {
  scopes: string[];
}

type Stores = { resources: ResourceStore } & AuditTx;
/** The stores a transaction that reads resources must carry. */
export type ResourceTx = { resources: ResourceStore };

/** RFC 8707 §2: an absolute URI without a fragment. */
export function isResourceUri(s: string): boolean {
  try {
    const u = new URL(s);
    return !u.hash && !s.includes('#') && u.protocol.length > 1;
  } catch {
    return false;
  }
}

export function toResource(r: ResourceRow): Resource {
  return { ...r, scopes: parseJsonList(r.scopes) };
}

export function toResourceView(r: ResourceRow): ResourceView {
  return { uri: r.uri, audience: r.audience, status: r.status, scopes: parseJsonList(r.scopes) };
}

export function createResourceService(deps: { store: Stores & TxRunner<Stores>; catalog: () => number; clock: Clock }) {
  const { store, clock } = deps;
  // By `${tenantId} ${uri}`: every token issued for a resource looks its audience up.
  const byUri = new CatalogCache<Resource>(deps.catalog);
  return {
    async create(tenantId: string, input: { uri: string; audience: string; scopes: string[] }, actor: AuditActor): Promise<ResourceView> {
      validInput(checkResourceInput, input, ResourceErrors.invalid);
      assertThat(isResourceUri(input.uri), ResourceErrors.invalid('uri: must be an absolute URI without a fragment'));
      const scopes = [...new Set(input.scopes)];
      const id = newId();
      await store.tx(async (tx) => {
        // (tenant, uri) and (tenant, audience) are unique: a concurrent twin fails its insert.
        assertThat(!(await tx.resources.findByUri(tenantId, input.uri)), ResourceErrors.conflict(`resource ${input.uri} exists`));
        assertThat(!(await tx.resources.findByAudience(tenantId, input.audience)), ResourceErrors.conflict(`audience ${input.audience} is in use`));
        await tx.resources
          .insert({ id, tenantId, uri: input.uri, audience: input.audience, scopes: JSON.stringify(scopes), createdAt: clock.now().toISOString() })
          .catch(onUnique(() => ResourceErrors.conflict(`resource ${input.uri} or audience ${input.audience} exists`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'resource.created', targetType: 'resource', targetId: input.uri, details: { audience: input.audience, scopes } });
      });
      return toResourceView((await store.resources.findByUri(tenantId, input.uri))!);
    },

    /** A page of resources. */
    async page(tenantId: string, page: number, size: number): Promise<{ items: ResourceView[]; hasMore: boolean }> {
      const rows = await store.resources.listPage(tenantId, page * size, size + 1);
      return { items: rows.slice(0, size).map(toResourceView), hasMore: rows.length > size };
    },

    /**
     * `resources update` (CLI): a new audience and scope list for the resource named by its URI.
     * Tokens already issued keep the audience they carry; clients' registered scopes are theirs.
     */
    async update(tenantId: string, uri: string, input: { audience: string; scopes: string[] }, actor: AuditActor): Promise<ResourceView> {
      validInput(checkResourceInput, { uri, ...input }, ResourceErrors.invalid);
      const scopes = [...new Set(input.scopes)];
      await store.tx(async (tx) => {
        const r = await tx.resources.findByUri(tenantId, uri);
        assertThat(r, ResourceErrors.unknown(uri));
        assertThat(!(await tx.resources.isManaged(tenantId, r.id)), ResourceErrors.configurationManaged(uri));
        const other = await tx.resources.findByAudience(tenantId, input.audience);
        assertThat(!other || other.id === r.id, ResourceErrors.conflict(`audience ${input.audience} is in use`));
        await tx.resources
          .update(tenantId, r.id, { audience: input.audience, scopes: JSON.stringify(scopes) })
          .catch(onUnique(() => ResourceErrors.conflict(`audience ${input.audience} is in use`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'resource.updated', targetType: 'resource', targetId: uri, details: { audience: input.audience, scopes } });
      });
      return toResourceView((await store.resources.findByUri(tenantId, uri))!);
    },

    /** `resources disable|enable`: a DISABLED resource cannot be requested and its credentials stop authenticating. */
    async setStatus(tenantId: string, uri: string, status: ResourceRow['status'], actor: AuditActor): Promise<ResourceView> {
      await store.tx(async (tx) => {
        const r = await tx.resources.findByUri(tenantId, uri);
        assertThat(r, ResourceErrors.unknown(uri));
        assertThat(!(await tx.resources.isManaged(tenantId, r.id)), ResourceErrors.configurationManaged(uri));
        await tx.resources.update(tenantId, r.id, { status });
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'resource.updated', targetType: 'resource', targetId: uri, details: { status } });
      });
      return toResourceView((await store.resources.findByUri(tenantId, uri))!);
    },

    async list(tenantId: string): Promise<ResourceView[]> {
      return (await store.resources.list(tenantId)).map(toResourceView);
    },

    /** The resource, from the catalogue cache (every change to resources moves its version). */
    findByUri(tenantId: string, uri: string): Promise<Resource | undefined> {
      return byUri.get(`${tenantId} ${uri}`, async () => {
        const r = await store.resources.findByUri(tenantId, uri);
        return r && toResource(r);
      });
    },

    /** The resource if the catalogue cache holds it (no database work); else use `findByUri`. */
    cachedByUri(tenantId: string, uri: string): Resource | undefined {
      return byUri.peek(`${tenantId} ${uri}`);
    },

    /** By audience (the name `engage apply` and the control tenant give a managed resource). */
    async findByAudience(tenantId: string, audience: string): Promise<Resource | undefined> {
      const r = await store.resources.findByAudience(tenantId, audience);
      return r && toResource(r);
    },

    /** Whether bootstrap configuration (`engage apply`, the control tenant) owns it. */
    isManaged: (tenantId: string, id: string): Promise<boolean> => store.resources.isManaged(tenantId, id),

    /** `engage apply` and the control tenant, in the caller's transaction: a managed resource's URI and scopes as declared, ACTIVE. */
    async replaceManagedIn(tx: ResourceTx, tenantId: string, id: string, uri: string, scopes: string[]): Promise<void> {
      await tx.resources.update(tenantId, id, { uri, scopes: JSON.stringify([...new Set(scopes)]), status: 'ACTIVE' });
    },

    /** The resource is configuration-managed from now on (the management API refuses to change it). */
    async markManagedIn(tx: ResourceTx, tenantId: string, id: string): Promise<void> {
      await tx.resources.markManaged(tenantId, id);
    },

    /**
     * The resource as the database holds it now, in a transaction: called inside another
     * context's transaction (client and credential creation) it joins it, so it sees what that
     * transaction wrote and nothing can change it before the commit.
     */
    async readByUri(tenantId: string, uri: string): Promise<Resource | undefined> {
      const r = await store.tx((tx) => tx.resources.findByUri(tenantId, uri));
      return r && toResource(r);
    },
  };
}

export type ResourceService = ReturnType<typeof createResourceService>;
