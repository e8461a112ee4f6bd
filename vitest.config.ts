import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects: unit and in-process tests colocated in src/, and tests in test/ that spawn the
// built dist/engage (e2e, conformance, browser), which need longer timeouts. `npm test` builds
// the binary before vitest runs.
const cores = os.availableParallelism();

// ENGAGE_TEST_REPORT_DIR (.ci/run): also a JSON report per engine, summed into the CI total.
const reportDir = process.env.ENGAGE_TEST_REPORT_DIR;
const engine = process.env.ENGAGE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

// What a person does in Chromium (the console's pages, the sign-in pages of the browser
// conformance tests, `engage login` through them) runs on SQLite only: what those pages ask of
// the database goes through the same routes and services the unit project runs on PostgreSQL
// (every route, contract table and store there), and the executable on PostgreSQL has e2e files
// of its own (init and migrate, fleets of processes, kill -9 durability, notices across
// processes, import and export, the CLI's commands). Running the pages twice took ~160 s of
// the PostgreSQL half's 912 (docs/benchmarks.md "CI time, 2026-11-27 evening").
const BROWSER_ONLY = ['test/e2e/console*.test.ts', 'test/conformance/*browser.test.ts', 'test/e2e/operator-login.test.ts', 'test/e2e/device-login.test.ts'];

export default defineConfig({
  test: {
    ...(reportDir ? { reporters: ['default', 'json'], outputFile: { json: `${reportDir}/${engine}.json` } } : {}),
    pool: 'forks',
    // A worker runs its test files one after another in one process, without loading the source
    // again for each file: loading the app through vite took ~2 s per file (collect 435 s of a
    // 1,002 s SQLite run); the unit project went from 491 to 133 s. Test files share no state
    // but module-level caches: each builds its own harness, servers and databases.
    isolate: false,
    // Vitest's default is cores - 1, i.e. one worker on a 2-core CI machine. Most test files wait on
    // SQLite or on a spawned server more than they compute, so use every core (and no more than 4).
    maxWorkers: Math.min(4, Math.max(2, cores)),
    minWorkers: 1,
    // Fail fast on a hung test rather than eating the CI budget (whole suite: well under 15 min).
    teardownTimeout: 10_000,
    // ENGAGE_TEST_ENGINE=postgres: one throwaway PostgreSQL cluster for the run (test/helpers/pg-cluster.ts).
    globalSetup: ['./test/helpers/pg-global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          // Every answer of a documented route is checked against the OpenAPI document (issue 22 point 4).
          // RSA keys from a ring per worker, not one new key per harness (signing-keys-setup.ts); each
          // file starts with Node's own Request and Response (node-globals-setup.ts).
          setupFiles: ['./test/helpers/node-globals-setup.ts', './test/helpers/response-check-setup.ts', './test/helpers/signing-keys-setup.ts'],
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...(engine === 'postgres' ? BROWSER_ONLY : [])],
          setupFiles: ['./test/helpers/node-globals-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
