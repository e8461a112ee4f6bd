import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { loadArgon2 } from '../../platform/native';
import { verifyImportedHash } from '../transfer/hashes';
import { createUserService, type PasswordKdfs } from './service';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 21 point 4: a wrong password for an imported account not yet re-hashed cost its bcrypt
 * and then a dummy argon2id (110–130 ms), an unknown email one argon2id (19–25 ms): one request
 * told imported accounts apart. Every password check now runs the same key derivations whatever
 * the account: one argon2id verification at the server's parameters and, while the tenant holds
 * imported hashes, one verification of the tenant's imported kind and cost (docs/decisions.md).
 * The derivations are recorded here, not timed (bench/password-timing.mjs measures them).
 */
let h: Harness;
let tenantId: string;
let work: string[];
let importedArgs: string[];

/** The real key derivations, each call recorded as the derivation and its cost parameters. */
const recording: PasswordKdfs = {
  async argon2id(hash, password) {
    work.push(`argon2id ${hash.split('$')[3]}`);
    return loadArgon2().verify(hash, password);
  },
  async imported(encoded, password) {
    work.push(`imported ${encoded.slice(0, 7)}`); // bcrypt: `$2b$04$`, its variant and cost
    importedArgs.push(encoded);
    return verifyImportedHash(encoded, password);
  },
};

// pyca/bcrypt's vector (cost 4: fast), the shape of an Auth0 import.
const IMPORTED = '$2b$04$cVWp4XaNU8a4v1uMRum2SO026BWLIoQMD/TXg5uZV.0P.uO8m3YEm';
const IMPORTED_PASSWORD = 'Kk4DQuMMfZL9o';

let users: ReturnType<typeof createUserService>;
beforeEach(async () => {
  h = await createHarness();
  tenantId = (await h.services.tenants.create({ slug: 'shop' }, SYSTEM_ACTOR)).id;
  users = createUserService({ store: h.services.store, clock: h.clock, kdfs: recording });
  await users.create(tenantId, { email: 'native@example.com', password: 'a native password' }, SYSTEM_ACTOR);
  work = [];
  importedArgs = [];
});
afterEach(() => h.close());

async function workOf(email: string, password: string): Promise<string[]> {
  work = [];
  expect(await users.verifyPassword(tenantId, email, password)).toBeUndefined();
  return work.sort();
}

const importAccount = (email: string, hash = IMPORTED) =>
  h.services.transfer.importer.importBatch(tenantId, 'auth0', 'CREATE_ONLY', [{ position: 0, record: { externalId: email, email, emailVerified: true, active: true, password: { hash } } }], { existing: 'fail' });

describe('the work of a password check (issue 21)', () => {
  it('unknown, native and imported accounts (wrong password, or disabled) run the same derivations at the same cost', async () => {
    await importAccount('imported@example.com');
    await importAccount('disabled@example.com');
    await h.sql.run(`UPDATE users SET status = 'DISABLED' WHERE email = ?`, ['disabled@example.com']);
    const expected = ['argon2id m=19456,t=2,p=1', 'imported $2b$04$'];
    expect(await workOf('nobody@example.com', 'a guess')).toEqual(expected);
    expect(await workOf('native@example.com', 'a guess')).toEqual(expected);
    expect(await workOf('imported@example.com', 'a guess')).toEqual(expected);
    expect(await workOf('disabled@example.com', IMPORTED_PASSWORD)).toEqual(expected);
  });

  it("accounts without that hash verify a random twin of the tenant's imported hash, never the hash itself", async () => {
    await importAccount('imported@example.com');
    await workOf('nobody@example.com', IMPORTED_PASSWORD);
    await workOf('native@example.com', IMPORTED_PASSWORD);
    expect(importedArgs).toHaveLength(2);
    for (const twin of importedArgs) {
      expect(twin).not.toBe(IMPORTED);
      expect(twin).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
    }
  });

  it('a tenant without imported hashes runs one argon2id; so does a tenant whose imported accounts have all signed in', async () => {
    expect(await workOf('nobody@example.com', 'a guess')).toEqual(['argon2id m=19456,t=2,p=1']);
    expect(await workOf('native@example.com', 'a guess')).toEqual(['argon2id m=19456,t=2,p=1']);
    await importAccount('imported@example.com');
    expect(await workOf('nobody@example.com', 'a guess')).toHaveLength(2);
    expect((await users.verifyPassword(tenantId, 'imported@example.com', IMPORTED_PASSWORD))?.email).toBe('imported@example.com');
    expect(await workOf('nobody@example.com', 'a guess')).toEqual(['argon2id m=19456,t=2,p=1']);
    expect(await workOf('imported@example.com', 'a guess')).toEqual(['argon2id m=19456,t=2,p=1']);
  });

  it('right passwords still sign in: native, and imported (then re-hashed to argon2id)', async () => {
    await importAccount('imported@example.com');
    expect((await users.verifyPassword(tenantId, 'native@example.com', 'a native password'))?.email).toBe('native@example.com');
    expect((await users.verifyPassword(tenantId, 'imported@example.com', IMPORTED_PASSWORD))?.email).toBe('imported@example.com');
    expect((await users.findByEmail(tenantId, 'imported@example.com'))!.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it("another tenant's imported hashes cost nothing here", async () => {
    const other = (await h.services.tenants.create({ slug: 'other' }, SYSTEM_ACTOR)).id;
    await h.services.transfer.importer.importBatch(other, 'auth0', 'CREATE_ONLY', [{ position: 0, record: { externalId: 'x', email: 'x@example.com', emailVerified: true, active: true, password: { hash: IMPORTED } } }], { existing: 'fail' });
    expect(await workOf('nobody@example.com', 'a guess')).toEqual(['argon2id m=19456,t=2,p=1']);
  });
});
