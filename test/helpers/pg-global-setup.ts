import { pgUnavailableReason, startPgCluster, type PgCluster } from './pg-cluster';

/**
 * vitest globalSetup: with ENGAGE_TEST_ENGINE=postgres, one throwaway cluster for the whole
 * run, its superuser URL in ENGAGE_TEST_DATABASE_URL (inherited by the test workers, which
 * each create their own database with createTestDatabase()). Does nothing otherwise, or when
 * a URL is already given (a cluster started by the caller).
 */
let cluster: PgCluster | undefined;

export async function setup(): Promise<void> {
  if (process.env.ENGAGE_TEST_ENGINE !== 'postgres' || process.env.ENGAGE_TEST_DATABASE_URL) return;
  const reason = pgUnavailableReason();
  if (reason) throw new Error(`ENGAGE_TEST_ENGINE=postgres but ${reason}`);
  cluster = await startPgCluster();
  process.env.ENGAGE_TEST_DATABASE_URL = cluster.url;
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
  cluster = undefined;
}
