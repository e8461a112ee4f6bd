/**
 * The versions the PostgreSQL engine keeps in memory (postgres-store.ts): what the version
 * triggers report in their notices and notifications (migrations/pg/0001, 0002, 0005), and a
 * counter per catalog_version row.
 */
const CATALOG_NOTICE = 'engage_catalog_changed';
/** Rows of catalog_version: the catalogue's (migrations/pg/0001), the token state's (0005), the directory's (0009). */
export const CATALOG = 1;
export const TOKEN_STATE = 2;
export const DIRECTORY = 3;
const REPORT = /^(?:(\d+):)?(\d+)$/;

/**
 * Which version a trigger reports, and its new value, from a notification's payload or what
 * follows the notice's name: `<v>` for the catalogue (migrations/pg/0002), `<row>:<v>` for
 * another row of catalog_version (0005); -1 when it names no value (a notice of 0001).
 */
export function versionReport(text: string): [row: number, v: number] {
  const m = REPORT.exec(text);
  return m ? [m[1] ? Number(m[1]) : CATALOG, Number(m[2])] : [CATALOG, -1];
}

/** The report of a version trigger's notice to the writing session (undefined: another notice). */
export function noticeReport(message: string | undefined): [row: number, v: number] | undefined {
  if (message === CATALOG_NOTICE) return [CATALOG, -1];
  return message?.startsWith(`${CATALOG_NOTICE} `) ? versionReport(message.slice(CATALOG_NOTICE.length + 1)) : undefined;
}

/**
 * A version kept in memory (`StoreEngine.catalogVersion`, `tokenStateVersion`): moves once per
 * change heard of. `heard` is the highest database value reported (own commits' notices and
 * every notification carry it), so the notification of a change this process already counted
 * at commit does not move it a second time; a report without a value (-1) moves it anyway.
 */
export class HeardVersion {
  version = 0;
  private heard = 0;
  report(v: number): void {
    if (v < 0) this.version++;
    else if (v > this.heard) {
      this.heard = v;
      this.version++;
    }
  }
  start(v: number): void {
    this.heard = v;
    this.version += v;
  }
}
