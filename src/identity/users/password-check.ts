import { newId } from '../../platform/crypto';
import { loadArgon2 } from '../../platform/native';
import { costTwin, verifyImportedHash } from '../transfer/hashes';
import type { UserRow } from './store';

/** The key derivations a password check runs (password-work.test.ts passes recording ones). */
export interface PasswordKdfs {
  /** argon2id verification of one of our own PHC strings. */
  argon2id(hash: string, password: string): Promise<boolean>;
  /** Verification of a hash brought by an import (transfer/hashes: refused unrun beyond its bounds). */
  imported(encoded: string, password: string): Promise<boolean>;
}

export const DEFAULT_KDFS: PasswordKdfs = {
  argon2id: (hash, password) => loadArgon2().verify(hash, password),
  imported: (encoded, password) => verifyImportedHash(encoded, password),
};

// What a tenant's accounts verify when its sample imported hash is one we refuse (beyond the
// bounds, stored before them): bcrypt of cost 10, what Auth0 exports, the commonest import.
const REFERENCE = `$2b$10$${'.'.repeat(53)}`;

/**
 * One password check, the same work whatever the account (issue 21 point 4; OWASP
 * Authentication Cheat Sheet, "Authentication Responses": the same time for an unknown user):
 * no account, a native one, an imported one not yet re-hashed, a disabled one. Each check runs
 *  - one argon2id verification at the server's parameters: the account's own hash, or a dummy;
 *  - while the tenant holds imported hashes not yet re-hashed, one verification of an imported
 *    hash: the account's own, or a random twin of one of the tenant's (same format and cost
 *    parameters, transfer/hashes `costTwin`), so an unknown email costs what an imported
 *    account's bcrypt costs.
 * Both run at once (argon2id on libuv's pool, bcrypt on the event loop, yielding): the answer
 * takes the longer of the two. A tenant without imported hashes pays argon2id alone, as before.
 * Returns which of the account's hashes matched, if one did; the caller checks the status.
 */
export function createPasswordCheck(deps: { kdfs: PasswordKdfs; hashPassword: (password: string) => Promise<string> }) {
  let dummy: Promise<string> | undefined;
  return async function checkPassword(user: UserRow | undefined, importedSample: string | undefined, password: unknown): Promise<'native' | 'imported' | undefined> {
    const pw = typeof password === 'string' ? password : '';
    const account = typeof password === 'string' ? user : undefined;
    const own = account?.passwordHash ? 'native' : account?.importedPasswordHash ? 'imported' : undefined;
    dummy ??= deps.hashPassword(newId());
    const argon2Hash = own === 'native' ? account!.passwordHash! : await dummy;
    const importedHash = own === 'imported' ? account!.importedPasswordHash! : importedSample && (costTwin(importedSample) ?? costTwin(REFERENCE));
    const [nativeOk, importedOk] = await Promise.all([deps.kdfs.argon2id(argon2Hash, pw), importedHash ? deps.kdfs.imported(importedHash, pw) : false]);
    if (own === 'native') return nativeOk ? own : undefined;
    if (own === 'imported') return importedOk ? own : undefined;
    return undefined;
  };
}
