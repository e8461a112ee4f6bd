import type { Command } from 'commander';
import { applyMigrations } from '../../src/platform/store/migrations';
import { applyPgMigrations } from '../../src/platform/store/pg-migrations';
import { openPostgres, redactUrl } from '../../src/platform/store/postgres';
import { openDatabase } from '../../src/platform/store/sqlite';
import { action, configFrom, output, withCommon, type CommonOptions } from '../cli';

export function registerMigrate(program: Command): void {
  withCommon(program.command('migrate').description('apply pending database migrations (idempotent; safe while other processes start)')).action(
    action(async (opts: CommonOptions) => {
      const config = configFrom(opts);
      let applied: string[];
      if (config.databaseUrl) {
        const pg = openPostgres(config.databaseUrl, { max: 1 });
        try {
          applied = await applyPgMigrations(pg);
        } catch (e) {
          throw new Error(`PostgreSQL at ${redactUrl(config.databaseUrl)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
        } finally {
          await pg.end({ timeout: 5 });
        }
      } else {
        const db = openDatabase(config.dataDir, { migrate: false });
        try {
          applied = applyMigrations(db.write.$client);
        } finally {
          db.close();
        }
      }
      if (opts.json) output(true, { applied });
      else process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
    }),
  );
}
