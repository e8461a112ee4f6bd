import type { Command } from 'commander';
import { action, initialise, output, withCommon, type CommonOptions } from '../cli';

/** `engage init` (issue 23 point 2): the one command besides serve and migrate that creates state. */
export function registerInit(program: Command): void {
  withCommon(
    program
      .command('init')
      .description('create the data directory: the database, the master key and the control tenant (serve does it too); idempotent'),
  )
    .addHelpText(
      'after',
      `
Every other command opens an existing data directory (--data-dir, default ./.engage) or
database (--database-url) and fails naming it when there is none; only init, migrate and serve
create one. A second init changes nothing, says so and exits 0.

Examples:
  engage init                                   # ./.engage/engage.db and ./.engage/master.key
  engage init --data-dir /var/lib/engage
  ENGAGE_MASTER_KEY=... engage init --database-url postgres://engage@db/engage   # no key file`,
    )
    .action(
      action(async (opts: CommonOptions) => {
        const r = await initialise(opts);
        if (opts.json) return output(true, r);
        const where = r.database.endsWith('engage.db') ? `engage data directory at ${r.dataDir}` : `engage database at ${r.database}`;
        process.stdout.write(
          r.created
            ? `initialised the ${where}\n  database:       ${r.database}\n  master key:     ${r.masterKey}\n  control issuer: ${r.controlIssuer}\n`
            : `the ${where} already exists; nothing changed\n`,
        );
      }),
    );
}
