import { ConfigError } from './config';
import { redactUrl } from './store/database-url';

/**
 * Where engage keeps its state is created only on purpose: by `engage init`, `engage migrate`
 * and `engage serve` (issue 23 point 2). Every other command opens what exists, and when it is
 * missing says what it looked for, in one line, rather than making a new, empty installation
 * in the folder it happened to run in.
 */
export class NotInitialisedError extends ConfigError {
  readonly code = 'not_initialised';
}

export const NotInitialised = {
  /** SQLite: no engage.db in the data directory (the directory itself may not exist). */
  dataDir: (dir: string) => new NotInitialisedError(`no engage data directory at ${dir} (run engage init, or pass --data-dir)`),
  /** PostgreSQL: the database has no engage tables (no migration ledger). */
  database: (url: string) => new NotInitialisedError(`no engage database at ${redactUrl(url)} (run engage init, or pass --database-url)`),
  /** The tables exist (engage migrate) but not the control tenant. */
  control: (where: string) => new NotInitialisedError(`the database at ${where} is not initialised (run engage init)`),
  /** No ENGAGE_MASTER_KEY and no key file: only init and serve make one. */
  masterKey: (file: string) => new NotInitialisedError(`no master key file at ${file} (set ENGAGE_MASTER_KEY, or pass --master-key-file)`),
};
