import type { ExposureRow, FlagStore } from './store';

export type { ExposureRow };

/** What the ingest transaction carries to count exposures (operations/service.ts). */
export type ExposureTx = { flags: Pick<FlagStore, 'recordExposures'> };

/**
 * Counts a batch's accepted FLAG_EXPOSED operations (issue 26 "Experiments"), in the ingest
 * transaction: one statement per 100 exposures, an insert that keeps the first exposure of each
 * (flag, experiment, flag version, installation) and only those of flags the environment has.
 * An exposure of an unknown flag stays ACCEPTED in the ledger and counts nowhere
 * (docs/decisions.md "Feature flags administration").
 */
export async function recordExposuresIn(tx: ExposureTx, owner: { environmentId: string; installationId: string }, rows: readonly ExposureRow[]): Promise<void> {
  if (rows.length > 0) await tx.flags.recordExposures(owner.environmentId, owner.installationId, rows);
}
