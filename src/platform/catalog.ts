import type BetterSqlite3 from 'better-sqlite3';
import type { Db } from './store/sqlite';

/**
 * The administrative catalogue (tenants, signing keys, clients, resources, resource
 * credentials) is read on every request and changes a few times a day. Its rows are kept in
 * memory, valid while `catalog_version` (src/db/schema/catalog.ts), which triggers move in the
 * same transaction as any change to those tables, stands still. Any writer is covered this
 * way, another process such as the CLI included: the next request after its commit sees it.
 */
export function createCatalogStore(db: Db) {
  let stmt: BetterSqlite3.Statement | undefined;
  return {
    version(): number {
      stmt ??= db.$client.prepare('SELECT version FROM catalog_version WHERE id = 1').pluck();
      return (stmt.get() as number | undefined) ?? 0;
    },
  };
}

export type CatalogStore = ReturnType<typeof createCatalogStore>;

export interface CatalogSource {
  catalog: CatalogStore;
  readSnapshot(): number | undefined;
}

/** The catalogue's version, read once per shared read snapshot (platform/store.ts). */
export function catalogVersion(source: CatalogSource): () => number {
  let snapshot: number | undefined;
  let version = 0;
  return () => {
    const s = source.readSnapshot();
    if (s !== undefined && s === snapshot) return version;
    version = source.catalog.version();
    snapshot = s;
    return version;
  };
}

/**
 * Catalogue rows by key, dropped together whenever the version moves. Only found rows are
 * kept (a miss is asked again: unknown keys come from clients), at most `max` of them.
 */
export class CatalogCache<V> {
  private readonly rows = new Map<string, V>();
  private version = -1;

  constructor(
    private readonly currentVersion: () => number,
    private readonly max = 10_000,
  ) {}

  get(key: string, load: () => V | undefined): V | undefined {
    // The version is read before the row: a row loaded after a change is at worst kept under
    // the version before it, and dropped at the next look.
    const v = this.currentVersion();
    if (v !== this.version) {
      this.rows.clear();
      this.version = v;
    }
    let row = this.rows.get(key);
    if (row === undefined) {
      row = load();
      if (row !== undefined) {
        if (this.rows.size >= this.max) this.rows.delete(this.rows.keys().next().value!);
        this.rows.set(key, row);
      }
    }
    return row;
  }
}
