import { CatalogCache } from '../../platform/catalog';
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import type { TxRunner } from '../../platform/store/store';
import type { KeyService, KeyTx } from '../keys/service';
import { TenantErrors } from './errors';
import { checkTenantCreate } from './schemas';
import { validInput } from '../../platform/http/schema';
import type { TenantRow, TenantStore } from './store';

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

type Stores = { tenants: TenantStore } & KeyTx;

export function createTenantService(deps: {
  store: Stores & TxRunner<Stores>;
  /** platform/catalog.ts: issuer routing runs on every request. */
  catalog: () => number;
  clock: Clock;
  keys: KeyService;
  publicUrl: string;
}) {
  const { store, clock, keys } = deps;
  const routes = new CatalogCache<ResolvedTenant>(deps.catalog);
  const managedIssuer = (t: TenantRow) => deps.publicUrl + t.managedPath;
  const exposedIssuer = (t: TenantRow) => t.customIssuer ?? managedIssuer(t);

  function view(t: TenantRow): TenantView {
    return {
      id: t.id,
      slug: t.slug,
      issuer: exposedIssuer(t),
      status: t.status,
      registrationMode: t.registrationMode,
      clientCount: store.tenants.countClients(t.id),
      resourceCount: store.tenants.countResources(t.id),
      createdAt: t.createdAt,
      managedIssuer: managedIssuer(t),
      configurationManaged: t.configurationManaged,
      // The managed issuer path embeds the slug a tenant was created with, so that slug
      // stays reserved; the control tenant's slug names the management API's issuer.
      slugLocked: t.isControl,
      issuerLocked: t.isControl,
    };
  }

  async function create(input: { slug: string; registrationMode?: string; isControl?: boolean }): Promise<TenantView> {
    const valid = validInput(checkTenantCreate, { slug: input.slug, registrationMode: input.registrationMode }, TenantErrors.invalid);
    const slug = valid.slug;
    const mode: RegistrationMode = valid.registrationMode ?? 'CONTROLLED';
    const key = await keys.generate();
    const id = newId();
    await store.tx((tx) => {
      assertThat(!tx.tenants.findBySlug(slug), TenantErrors.conflict(`slug ${slug} is taken`));
      assertThat(!tx.tenants.findByManagedPath(MANAGED_PREFIX + slug), TenantErrors.conflict(`issuer path for ${slug} is reserved`));
      assertThat(!input.isControl || !tx.tenants.findControl(), TenantErrors.conflict('the control tenant exists'));
      const now = clock.now().toISOString();
      tx.tenants.insert({
        id,
        slug,
        managedPath: MANAGED_PREFIX + slug,
        registrationMode: mode,
        isControl: input.isControl ?? false,
        createdAt: now,
        updatedAt: now,
      });
      keys.insertActive(tx, id, key);
    });
    return view(store.tenants.findById(id)!);
  }

  return {
    create,
    view,
    issuerOf: exposedIssuer,
    managedIssuerOf: managedIssuer,

    /** Creates the control tenant on first start; idempotent. */
    async ensureControl(): Promise<TenantView> {
      const existing = store.tenants.findControl();
      if (existing) return view(existing);
      try {
        return await create({ slug: CONTROL_SLUG, isControl: true });
      } catch (e) {
        // Another process initialised concurrently.
        const now = store.tenants.findControl();
        if (now) return view(now);
        throw e;
      }
    },

    control(): TenantRow | undefined {
      return store.tenants.findControl();
    },

    /** By slug or id (CLI and management API). */
    get(ref: string): TenantRow {
      const t = store.tenants.findBySlug(ref) ?? store.tenants.findById(ref);
      assertThat(t, TenantErrors.unknown(ref));
      return t;
    },

    list(page: number, size: number): { items: TenantView[]; total: number } {
      return { items: store.tenants.list(page * size, size).map(view), total: store.tenants.total() };
    },

    /** Issuer routing by path: `/t/<segment>` under the public URL. Only ACTIVE tenants. */
    resolveByPath(segment: string): ResolvedTenant | undefined {
      return routes.get(`p ${segment}`, () => {
        const t = store.tenants.findByManagedPath(MANAGED_PREFIX + segment);
        return t && t.status === 'ACTIVE' ? { tenant: t, issuer: managedIssuer(t) } : undefined;
      });
    },

    /** Issuer routing by Host for a host-only custom issuer. */
    resolveByHost(host: string): ResolvedTenant | undefined {
      return routes.get(`h ${host}`, () => {
        const t = store.tenants.findByCustomHost(host.toLowerCase());
        return t && t.status === 'ACTIVE' && t.customIssuer ? { tenant: t, issuer: t.customIssuer } : undefined;
      });
    },

    /** Sets or clears a host-only custom issuer (`https://id.example.com`). */
    async setCustomIssuer(ref: string, issuer: string | null): Promise<TenantView> {
      const t = this.get(ref);
      let host: string | null = null;
      if (issuer !== null) {
        let u: URL;
        try {
          u = new URL(issuer);
        } catch {
          throw TenantErrors.invalid('issuer must be an absolute URL');
        }
        assertThat(
          (u.protocol === 'https:' || u.protocol === 'http:') && (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash && !u.username,
          TenantErrors.invalid('a custom issuer is host-only: scheme and host, no path, query or fragment'),
        );
        host = u.host.toLowerCase();
        issuer = `${u.protocol}//${host}`;
      }
      await store.tx((tx) => {
        assertThat(!t.isControl, TenantErrors.issuerLocked('the control issuer cannot change'));
        const other = host ? tx.tenants.findByCustomHost(host) : undefined;
        assertThat(!other || other.id === t.id, TenantErrors.issuerLocked(`issuer ${issuer} is in use`));
        tx.tenants.update(t.id, { customIssuer: issuer, customHost: host, updatedAt: clock.now().toISOString() });
      });
      return view(store.tenants.findById(t.id)!);
    },

    async setStatus(ref: string, status: TenantRow['status']): Promise<TenantView> {
      const t = this.get(ref);
      assertThat(!(t.isControl && status === 'DISABLED'), TenantErrors.invalid('the control tenant cannot be disabled'));
      await store.tx((tx) => tx.tenants.update(t.id, { status, updatedAt: clock.now().toISOString() }));
      return view(store.tenants.findById(t.id)!);
    },
  };
}

export type TenantService = ReturnType<typeof createTenantService>;
