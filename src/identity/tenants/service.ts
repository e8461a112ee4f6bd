import { CatalogCache } from '../../platform/catalog';
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import type { KeyService, KeyTx } from '../keys/service';
import { TenantErrors } from './errors';
import { checkTenantCreate, checkTenantUpdate } from './schemas';
import { validInput } from '../../platform/http/schema';
import type { TenantRow, TenantStore } from './store';
import { onUnique } from '../../platform/store/sql';
import { SYSTEM_ACTOR, type AuditActor, type AuditTx } from '../audit';

export type RegistrationMode = TenantRow['registrationMode'];

/** The Tenant object of spec 03, exactly. */
export interface TenantView {
  id: string;
  slug: string;
  issuer: string;
  status: TenantRow['status'];
  registrationMode: RegistrationMode;
  clientCount: number;
  resourceCount: number;
  createdAt: string;
  managedIssuer: string;
  configurationManaged: boolean;
  slugLocked: boolean;
  issuerLocked: boolean;
}

/** A tenant resolved for a request, with the issuer the request came through. */
export interface ResolvedTenant {
  tenant: TenantRow;
  issuer: string;
}

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const CONTROL_SLUG = 'control';
const MANAGED_PREFIX = '/t/';

type Stores = { tenants: TenantStore } & KeyTx & AuditTx;
/** The stores a transaction that writes a tenant must carry. */
export type TenantTx = { tenants: TenantStore };

/** A host-only custom issuer (`https://id.example.com`) normalised, with its host; null clears it. */
function parseCustomIssuer(issuer: string | null): { issuer: string | null; host: string | null } {
  if (issuer === null) return { issuer: null, host: null };
  const u = URL.parse(issuer);
  assertThat(u, TenantErrors.invalid('issuer must be an absolute URL'));
  assertThat(
    (u.protocol === 'https:' || u.protocol === 'http:') && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash && !u.username,
    TenantErrors.invalid('a custom issuer is host-only: scheme and host, no path, query or fragment'),
  );
  const host = u.host.toLowerCase();
  return { issuer: `${u.protocol}//${host}`, host };
}

/** In the caller's transaction: the custom issuer may change (not the control tenant's; a host serves one tenant). */
async function checkIssuerChange(tx: Stores, t: TenantRow, issuer: string | null, host: string | null): Promise<void> {
  assertThat(!t.isControl, TenantErrors.issuerLocked('the control issuer cannot change'));
  const other = host ? await tx.tenants.findByCustomHost(host) : undefined;
  assertThat(!other || other.id === t.id, TenantErrors.issuerLocked(`issuer ${issuer} is in use`));
}

export function createTenantService(deps: {
  store: Stores & TxRunner<Stores>;
  /** platform/catalog.ts: issuer routing runs on every request. */
  catalog: () => number;
  clock: Clock;
  keys: KeyService;
  publicUrl: string;
  /** Creates the control tenant's system objects (operators/control.ts); run by every `ensureControl`. */
  initControl?: (control: TenantView) => Promise<void>;
}) {
  const { store, clock, keys } = deps;
  const routes = new CatalogCache<ResolvedTenant>(deps.catalog);
  const byIdCache = new CatalogCache<TenantRow>(deps.catalog);
  const managedIssuer = (t: TenantRow) => deps.publicUrl + t.managedPath;
  const exposedIssuer = (t: TenantRow) => t.customIssuer ?? managedIssuer(t);

  async function view(t: TenantRow): Promise<TenantView> {
    return viewWith(t, await store.tenants.countClients(t.id), await store.tenants.countResources(t.id));
  }

  function viewWith(t: TenantRow, clientCount: number, resourceCount: number): TenantView {
    return {
      id: t.id,
      slug: t.slug,
      issuer: exposedIssuer(t),
      status: t.status,
      registrationMode: t.registrationMode,
      clientCount,
      resourceCount,
      createdAt: t.createdAt,
      managedIssuer: managedIssuer(t),
      configurationManaged: t.configurationManaged,
      // The managed issuer path embeds the slug a tenant was created with, so that slug
      // stays reserved; the control tenant's slug names the management API's issuer.
      slugLocked: t.isControl,
      issuerLocked: t.isControl,
    };
  }

  async function create(input: { slug: string; registrationMode?: string; isControl?: boolean }, actor: AuditActor): Promise<TenantView> {
    const valid = validInput(checkTenantCreate, { slug: input.slug, registrationMode: input.registrationMode }, TenantErrors.invalid);
    const slug = valid.slug;
    const mode: RegistrationMode = valid.registrationMode ?? 'CONTROLLED';
    const key = await keys.generate();
    const id = newId();
    const sealed = keys.seal(key);
    await store.tx(async (tx) => {
      // The unique slug and managed path hold under a race too: a second insert fails.
      assertThat(!(await tx.tenants.findBySlug(slug)), TenantErrors.conflict(`slug ${slug} is taken`));
      assertThat(!(await tx.tenants.findByManagedPath(MANAGED_PREFIX + slug)), TenantErrors.conflict(`issuer path for ${slug} is reserved`));
      assertThat(!input.isControl || !(await tx.tenants.findControl()), TenantErrors.conflict('the control tenant exists'));
      const now = clock.now().toISOString();
      await tx.tenants.insert({
        id,
        slug,
        managedPath: MANAGED_PREFIX + slug,
        registrationMode: mode,
        isControl: input.isControl ?? false,
        createdAt: now,
        updatedAt: now,
      }).catch(onUnique(() => TenantErrors.conflict(input.isControl ? 'the control tenant exists' : `slug ${slug} is taken`)));
      await keys.insertActive(tx, id, sealed);
      await tx.audit.record(actor, { at: clock.now(), tenantId: id, action: 'tenant.created', targetType: 'tenant', targetId: id, details: { slug, registrationMode: mode } });
    });
    return view((await store.tenants.findById(id))!);
  }

  async function findOrCreateControl(): Promise<TenantView> {
    const existing = await store.tenants.findControl();
    if (existing) return view(existing);
    try {
      return await create({ slug: CONTROL_SLUG, isControl: true }, SYSTEM_ACTOR);
    } catch (e) {
      // Another process initialised concurrently.
      const now = await store.tenants.findControl();
      if (now) return view(now);
      throw e;
    }
  }

  return {
    create,
    view,
    issuerOf: exposedIssuer,
    managedIssuerOf: managedIssuer,

    /** Creates the control tenant on first start; idempotent. */
    async ensureControl(): Promise<TenantView> {
      const control = await findOrCreateControl();
      // Also for databases made before the system objects existed (idempotent).
      await deps.initControl?.(control);
      return control;
    },

    control(): Promise<TenantRow | undefined> {
      return store.tenants.findControl();
    },

    /** By slug or id (CLI and management API). */
    async get(ref: string): Promise<TenantRow> {
      const t = (await store.tenants.findBySlug(ref)) ?? (await store.tenants.findById(ref));
      assertThat(t, TenantErrors.unknown(ref));
      return t;
    },

    async list(page: number, size: number): Promise<{ items: TenantView[]; total: number }> {
      const items: TenantView[] = [];
      for (const t of await store.tenants.list(page * size, size)) items.push(await view(t));
      return { items, total: await store.tenants.total() };
    },

    /** A page of tenants (the management API's envelope: size + 1 rows read, no count). */
    async page(page: number, size: number): Promise<{ items: TenantView[]; hasMore: boolean }> {
      // One query with the counts beside each row, not two more per tenant.
      const rows = await store.tenants.listWithCounts(page * size, size + 1);
      return { items: rows.slice(0, size).map((r) => viewWith(r.tenant, r.clientCount, r.resourceCount)), hasMore: rows.length > size };
    },

    /** By id only (the management API addresses tenants by id); from the catalogue cache, as issuer routing. */
    async byId(tenantId: string): Promise<TenantRow> {
      const t = await byIdCache.get(tenantId, () => store.tenants.findById(tenantId));
      assertThat(t, TenantErrors.unknown(tenantId));
      return t;
    },

    /**
     * Issuer routing by path: `/t/<segment>` under the public URL. Only ACTIVE tenants.
     * Every request resolves its tenant: try `cachedByPath` first, which does no database work.
     */
    resolveByPath(segment: string): Promise<ResolvedTenant | undefined> {
      return routes.get(`p ${segment}`, async () => {
        const t = await store.tenants.findByManagedPath(MANAGED_PREFIX + segment);
        return t && t.status === 'ACTIVE' ? { tenant: t, issuer: managedIssuer(t) } : undefined;
      });
    },

    /** The tenant of `/t/<segment>` if the catalogue cache holds it (synchronous); else `resolveByPath`. */
    cachedByPath(segment: string): ResolvedTenant | undefined {
      return routes.peek(`p ${segment}`);
    },

    /** Issuer routing by Host for a host-only custom issuer (try `cachedByHost` first). */
    resolveByHost(host: string): Promise<ResolvedTenant | undefined> {
      return routes.get(`h ${host}`, async () => {
        const t = await store.tenants.findByCustomHost(host.toLowerCase());
        return t && t.status === 'ACTIVE' && t.customIssuer ? { tenant: t, issuer: t.customIssuer } : undefined;
      });
    },

    /** The tenant of a custom issuer's Host if the catalogue cache holds it (synchronous); else `resolveByHost`. */
    cachedByHost(host: string): ResolvedTenant | undefined {
      return routes.peek(`h ${host}`);
    },

    /** Sets or clears a host-only custom issuer (`https://id.example.com`). */
    async setCustomIssuer(ref: string, issuer: string | null, actor: AuditActor): Promise<TenantView> {
      const t = await this.get(ref);
      const parsed = parseCustomIssuer(issuer);
      await store.tx(async (tx) => {
        await checkIssuerChange(tx, t, parsed.issuer, parsed.host);
        // custom_host is unique: a concurrent claim of the same host fails its update.
        await tx.tenants
          .update(t.id, { customIssuer: parsed.issuer, customHost: parsed.host, updatedAt: clock.now().toISOString() })
          .catch(onUnique(() => TenantErrors.issuerLocked(`issuer ${parsed.issuer} is in use`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId: t.id, action: 'tenant.updated', targetType: 'tenant', targetId: t.id, details: { issuer: parsed.issuer ?? managedIssuer(t) } });
      });
      return view((await store.tenants.findById(t.id))!);
    },

    /**
     * PUT /tenants/{tenantId} (spec 03): replaces slug, issuer and registrationMode. The lock
     * fields decide: a configurationManaged tenant is refused whole (bootstrap owns it), a
     * changed slug needs slugLocked false, a changed issuer issuerLocked false. The issuer is the
     * exposed one: the managed issuer (no custom domain) or a host-only custom issuer. A renamed
     * tenant keeps its managed issuer (its path embeds the slug it was created with), so tokens
     * and relying parties keep working; the old slug stays reserved by that path
     * (docs/decisions.md "Management API").
     */
    async update(
      tenantId: string,
      input: { slug: string; issuer: string; registrationMode: RegistrationMode },
      actor: AuditActor,
      opts: { allowManaged?: boolean } = {},
    ): Promise<TenantView> {
      const valid = validInput(checkTenantUpdate, input, TenantErrors.invalid);
      const t = await store.tenants.findById(tenantId);
      assertThat(t, TenantErrors.unknown(tenantId));
      const custom = valid.issuer.replace(/\/+$/, '') === managedIssuer(t) ? { issuer: null, host: null } : parseCustomIssuer(valid.issuer);
      await store.tx(async (tx) => {
        const current = await tx.tenants.findById(t.id);
        assertThat(current, TenantErrors.unknown(tenantId));
        assertThat(opts.allowManaged || !current.configurationManaged, TenantErrors.configurationManaged());
        const changes: Record<string, unknown> = {};
        if (valid.slug !== current.slug) {
          assertThat(!current.isControl, TenantErrors.slugLocked('the control tenant\'s slug names the control issuer'));
          const other = await tx.tenants.findBySlug(valid.slug);
          assertThat(!other, TenantErrors.conflict(`slug ${valid.slug} is taken`));
          const path = await tx.tenants.findByManagedPath(MANAGED_PREFIX + valid.slug);
          assertThat(!path || path.id === current.id, TenantErrors.conflict(`issuer path for ${valid.slug} is reserved`));
          changes.slug = valid.slug;
        }
        if (custom.issuer !== current.customIssuer) {
          await checkIssuerChange(tx, current, custom.issuer, custom.host);
          changes.issuer = custom.issuer ?? managedIssuer(current);
        }
        if (valid.registrationMode !== current.registrationMode) changes.registrationMode = valid.registrationMode;
        if (Object.keys(changes).length === 0) return;
        await tx.tenants
          .update(current.id, {
            slug: valid.slug,
            customIssuer: custom.issuer,
            customHost: custom.host,
            registrationMode: valid.registrationMode,
            updatedAt: clock.now().toISOString(),
          })
          .catch(onUnique(() => TenantErrors.conflict(`slug ${valid.slug} or issuer ${valid.issuer} is in use`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId: current.id, action: 'tenant.updated', targetType: 'tenant', targetId: current.id, details: changes });
      });
      return view((await store.tenants.findById(t.id))!);
    },

    /** `engage apply`, in its transaction (with its audit event): the tenant is configuration-managed from now on. */
    async markManagedIn(tx: TenantTx, id: string): Promise<void> {
      await tx.tenants.update(id, { configurationManaged: true });
    },

    /** `engage apply`, in its transaction: the registration mode as declared (a managed tenant refuses the management API's PUT). */
    async setRegistrationModeIn(tx: TenantTx, id: string, mode: RegistrationMode, at: string): Promise<void> {
      await tx.tenants.update(id, { registrationMode: mode, updatedAt: at });
    },

    async setStatus(ref: string, status: TenantRow['status'], actor: AuditActor): Promise<TenantView> {
      const t = await this.get(ref);
      assertThat(!(t.isControl && status === 'DISABLED'), TenantErrors.invalid('the control tenant cannot be disabled'));
      await store.tx(async (tx) => {
        await tx.tenants.update(t.id, { status, updatedAt: clock.now().toISOString() });
        await tx.audit.record(actor, { at: clock.now(), tenantId: t.id, action: 'tenant.updated', targetType: 'tenant', targetId: t.id, details: { status } });
      });
      return view((await store.tenants.findById(t.id))!);
    },
  };
}

export type TenantService = ReturnType<typeof createTenantService>;
