import { CHANNEL } from './version-channels';

/**
 * The version channels the PostgreSQL engine keeps in memory (postgres-store.ts): what
 * `engage_version_bump` (migrations/pg/0025) reports in its notices and notifications, and a
 * counter per channel.
 */
const CATALOG_NOTICE = 'engage_catalog_changed';
/** The rows of catalog_version before migration 0025, as a process not yet upgraded reports them. */
const LEGACY_ROWS: Record<string, string> = { 1: CHANNEL.catalog, 2: CHANNEL.tokenState, 3: CHANNEL.directory };
const VALUE = /^\d+$/;

/**
 * Which channel a report names, and its new value, from a notification's payload or what
 * follows the notice's name: `<channel>:<v>` (a channel's name may itself hold `:`), or the
 * forms before 0025 (`<v>` for the catalogue, `<row>:<v>`). A report naming no value moves the
 * catalogue (-1: every change of it unknown).
 */
export function versionReport(text: string): [channel: string, v: number] {
  const at = text.lastIndexOf(':');
  const value = text.slice(at + 1);
  if (!VALUE.test(value)) return [CHANNEL.catalog, -1];
  if (at < 0) return [CHANNEL.catalog, Number(value)];
  const name = text.slice(0, at);
  return [LEGACY_ROWS[name] ?? name, Number(value)];
}

/** The report of a version notice to the writing session (undefined: another notice). */
export function noticeReport(message: string | undefined): [channel: string, v: number] | undefined {
  if (message === CATALOG_NOTICE) return [CHANNEL.catalog, -1];
  return message?.startsWith(`${CATALOG_NOTICE} `) ? versionReport(message.slice(CATALOG_NOTICE.length + 1)) : undefined;
}

/**
 * A version kept in memory: moves once per change heard of. `heard` is the highest database
 * value reported (own commits' notices and every notification carry it), so the notification
 * of a change this process already counted at commit does not move it a second time; a report
 * without a value (-1) moves it anyway.
 */
class HeardVersion {
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

/**
 * Every channel's version in this process. A channel is counted from the first report heard of
 * it, or from its row read at start: the process listens before it reads, so no change is
 * missed, and a channel created later (its first move) is heard like any other. Its version is
 * only ever compared with itself, so counting changes from any start is enough.
 */
export class HeardVersions {
  private readonly channels = new Map<string, HeardVersion>();
  /** Moves with every gap in listening, so every channel moves, those never heard of included. */
  private gaps = 0;

  private of(channel: string): HeardVersion {
    let v = this.channels.get(channel);
    if (!v) this.channels.set(channel, (v = new HeardVersion()));
    return v;
  }

  /** The channel's version in this process (0 for a channel never heard of). */
  get(channel: string): number {
    return this.gaps + (this.channels.get(channel)?.version ?? 0);
  }

  /** Moves it by one, whatever was heard (a read that must not trust the cache). */
  move(channel: string): number {
    return this.gaps + ++this.of(channel).version;
  }

  report(channel: string, v: number): void {
    this.of(channel).report(v);
  }

  reportAll(reported: Map<string, number>): void {
    for (const [channel, v] of reported) this.report(channel, v);
  }

  start(channel: string, v: number): void {
    this.of(channel).start(v);
  }

  /** After a gap in listening: whatever changed meanwhile is unknown, every channel moves. */
  forgetAll(): void {
    this.gaps++;
  }
}
