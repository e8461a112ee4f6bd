import type { Command } from 'commander';
import { applyMigrations } from '../../src/platform/store/migrations';
import { redactUrl } from '../../src/platform/store/database-url';
import { openDatabase } from '../../src/platform/store/sqlite';
import { action, configFrom, output, withCommon, type CommonOptions } from '../cli';

/**
 * Applies pending migrations; creates the SQLite file (and its directory) if missing, as `init`
 * and `serve` do. Not the master key nor the control tenant: `engage init` or `serve` makes them.
 */
export async function migrate(opts: CommonOptions): Promise<string[]> {
  const config = configFrom(opts);
  if (config.databaseUrl) {
    const [{ applyPgMigrations }, { openPostgres }] = await Promise.all([import('../../src/platform/store/pg-migrations'), import('../../src/platform/store/postgres')]);
    const pg = openPostgres(config.databaseUrl, { max: 1 });
    try {
      return await applyPgMigrations(pg);
    } catch (e) {
      throw new Error(`PostgreSQL at ${redactUrl(config.databaseUrl)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    } finally {
      await pg.end({ timeout: 5 });
    }
  }
  const db = openDatabase(config.dataDir, { migrate: false });
  try {
    return applyMigrations(db.write.$client);
  } finally {
    db.close();
  }
}

export function registerMigrate(program: Command): void {
  withCommon(program.command('migrate').description('apply pending database migrations (idempotent; safe while other processes start); creates the database if missing')).action(
    action(async (opts: CommonOptions) => {
      const applied = await migrate(opts);
      if (opts.json) output(true, { applied });
      else process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
    }),
  );
}
