import type { FlagDefinition } from './schemas';
import type { ExposureRow, FlagStore } from './store';

export type { ExposureRow };

/** What the ingest transaction carries to count exposures (operations/service.ts). */
export type ExposureTx = { flags: Pick<FlagStore, 'recordExposures' | 'versionDefinitions'> };

/** What a flag version lets an exposure name: its experiments' ids and the flag's variant keys. */
interface Countable {
  experiments: ReadonlySet<string>;
  variants: ReadonlySet<string>;
}

/** Flag versions whose experiments are held in memory per process (a version never changes once written). */
const CACHED_VERSIONS = 1024;

/**
 * Counts a batch's accepted FLAG_EXPOSED operations (issue 26 "Experiments"), in the ingest
 * transaction: the first exposure of each (flag, experiment, flag version, installation), and only
 * one the flag's version could have served: the flag has that version, the version has an
 * experiment of that id, and the variant is one of the flag's. Anything else (an unknown flag, a
 * version that does not exist, an experiment or variant the version does not have) stays ACCEPTED
 * in the ledger and counts nowhere (docs/decisions.md "Feature flags administration" and "The sync
 * surface, reviewed as an attacker (r6)"): without this an installation could add rows without end
 * (a new experiment id or revision per operation) and write its own text into the report operators
 * read.
 *
 * The versions' experiments are read in one statement per batch for the versions not yet held.
 */
export function createExposureCounter() {
  const held = new Map<string, Countable>();
  const cacheKey = (environmentId: string, flagKey: string, version: number) => `${environmentId}\u0000${flagKey}\u0000${version}`;

  async function recordIn(tx: ExposureTx, owner: { environmentId: string; installationId: string }, rows: readonly ExposureRow[]): Promise<void> {
    if (rows.length === 0) return;
    const batch = new Map<string, Countable | undefined>();
    const missing = new Map<string, { flagKey: string; version: number }>();
    for (const r of rows) {
      const k = cacheKey(owner.environmentId, r.flagKey, r.revision);
      if (batch.has(k) || missing.has(k)) continue;
      const h = held.get(k);
      if (h) batch.set(k, h);
      else missing.set(k, { flagKey: r.flagKey, version: r.revision });
    }
    if (missing.size > 0) {
      for (const v of await tx.flags.versionDefinitions(owner.environmentId, [...missing.values()])) {
        const k = cacheKey(owner.environmentId, v.flagKey, v.version);
        const countable = countableOf(v.definition);
        batch.set(k, countable);
        held.delete(k);
        held.set(k, countable);
        if (held.size > CACHED_VERSIONS) held.delete(held.keys().next().value!);
      }
    }
    const counted = rows.filter((r) => {
      const c = batch.get(cacheKey(owner.environmentId, r.flagKey, r.revision));
      return c !== undefined && c.experiments.has(r.experimentId) && c.variants.has(r.variantKey);
    });
    if (counted.length > 0) await tx.flags.recordExposures(owner.environmentId, owner.installationId, counted);
  }

  return { recordIn };
}

export type ExposureCounter = ReturnType<typeof createExposureCounter>;

function countableOf(definition: string): Countable {
  const d = JSON.parse(definition) as FlagDefinition;
  const experiments = new Set<string>();
  for (const rule of d.rules ?? []) if (rule.experiment) experiments.add(rule.experiment.experimentId);
  return { experiments, variants: new Set(Object.keys(d.variants ?? {})) };
}
