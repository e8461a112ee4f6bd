import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config';
import { NotInitialised } from './data-dir';

/**
 * The master key seals private key material at rest. Source: ENGAGE_MASTER_KEY (base64 of 32
 * bytes) or a key file, created on first use with mode 0600 (exclusive create, so two
 * processes starting together agree on one key) by init and serve; `create: false` (every other
 * command) refuses a missing file instead.
 */
export function loadMasterKey(opts: { masterKey?: string; masterKeyFile: string }, { create = true }: { create?: boolean } = {}): Buffer {
  if (opts.masterKey) {
    const key = Buffer.from(opts.masterKey, 'base64');
    if (key.length !== 32) throw new ConfigError('invalid setting masterKey (ENGAGE_MASTER_KEY): expected base64 of 32 bytes');
    return key;
  }
  // Only init and serve make a key (issue 23 point 2): a command never seals with a key of its own.
  if (!create && !existsSync(opts.masterKeyFile)) throw NotInitialised.masterKey(opts.masterKeyFile);
  // The data directory may not exist yet (PostgreSQL: nothing else is stored in it).
  mkdirSync(path.dirname(opts.masterKeyFile), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(opts.masterKeyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new ConfigError(`cannot create master key file ${opts.masterKeyFile}: ${(e as Error).message}`);
  }
  const key = Buffer.from(readFileSync(opts.masterKeyFile, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(`master key file ${opts.masterKeyFile} does not hold base64 of 32 bytes`);
  return key;
}
