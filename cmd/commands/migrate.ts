import type { Command } from 'commander';
import { openDatabase } from '../../src/platform/store/sqlite';
import { applyMigrations } from '../../src/platform/store/migrations';
import { action, configFrom, output, withCommon, type CommonOptions } from '../cli';

export function registerMigrate(program: Command): void {
  withCommon(program.command('migrate').description('apply pending database migrations (idempotent)')).action(
    action(async (opts: CommonOptions) => {
      const config = configFrom(opts);
      const db = openDatabase(config.dataDir, { migrate: false });
      try {
        const applied = applyMigrations(db.write.$client);
        if (opts.json) output(true, { applied });
        else process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
      } finally {
        db.close();
      }
    }),
  );
}
