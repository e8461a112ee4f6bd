/**
 * The administrative catalogue (tenants, signing keys, clients, resources, resource
 * credentials) is read on every request and changes a few times a day. Its rows are kept in
 * memory, valid while the store's `catalog` version channel (`StoreEngine.version`, which
 * triggers move in the same transaction as any change to those tables) stands still. Any writer is covered this way, another process such as the CLI included.
 */

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

  /** The kept row, if any (synchronous: the hot paths try this before awaiting `get`). */
  peek(key: string): V | undefined {
    const v = this.currentVersion();
    if (v !== this.version) {
      this.rows.clear();
      this.version = v;
    }
    return this.rows.get(key);
  }

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    // The version is read before the row: a row loaded after a change is at worst kept under
    // the version before it, and dropped at the next look.
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const version = this.version;
    const row = await load();
    if (row !== undefined && this.version === version) {
      if (this.rows.size >= this.max) this.rows.delete(this.rows.keys().next().value!);
      this.rows.set(key, row);
    }
    return row;
  }
}
