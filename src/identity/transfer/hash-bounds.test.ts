import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { EMAIL, createNativeFixture, nativePost, openInteraction } from '../../../test/fixtures/native';
import { BCRYPT_TAIL, ISSUE_HASHES } from './hashes/testing';
import type { ImportItem } from './importer';
import { SYSTEM_ACTOR } from '../audit';

/**
 * Issue 21 point 1, end to end: the import of the issue's hashes fails with
 * hash_cost_out_of_bounds, and such a hash put in the database by other means answers a sign-in
 * as a wrong password (never a 500, never a long computation), on both engines.
 */
let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const items = (records: unknown[]): ImportItem[] => records.map((record, position) => ({ position, record }));
const rec = (n: number, hash: string) => ({ externalId: `ext-${n}`, email: `user${n}@example.com`, emailVerified: true, active: true, password: { hash } });

describe('imported hashes beyond the cost bounds (issue 21)', () => {
  it("the issue's three hashes fail with hash_cost_out_of_bounds; a bcrypt of cost 10 in the same batch is imported", async () => {
    const tenantId = (await h.services.tenants.create({ slug: 'shop' }, SYSTEM_ACTOR)).id;
    const records = [...ISSUE_HASHES.map(([, hash], i) => rec(i, hash)), rec(9, `$2a$10$${BCRYPT_TAIL}`)];
    const outcomes = await h.services.transfer.importer.importBatch(tenantId, 'legacy', 'CREATE_ONLY', items(records), { existing: 'fail' });
    expect(outcomes.map((o) => [o.externalId, o.status, o.errorCode])).toEqual([
      ['ext-0', 'FAILED', 'hash_cost_out_of_bounds'],
      ['ext-1', 'FAILED', 'hash_cost_out_of_bounds'],
      ['ext-2', 'FAILED', 'hash_cost_out_of_bounds'],
      ['ext-9', 'SUCCEEDED', null],
    ]);
    expect(outcomes[0].detail).toMatch(/bcrypt cost 31/);
    expect((await h.services.users.list(tenantId)).map((u) => u.email)).toEqual(['user9@example.com']);
  });

  it.each(ISSUE_HASHES)('%s stored directly in the database: the native password proof answers invalid_credentials', async (_name, hash) => {
    const f = await createNativeFixture(h);
    await h.sql.run('UPDATE users SET password_hash = NULL, imported_password_hash = ?, imported_password_format = ? WHERE id = ?', [hash, hash.startsWith('$2') ? 'bcrypt' : 'scrypt', f.userId]);
    expect(await h.services.users.verifyPassword(f.tenant.tenant.id, EMAIL, 'some password')).toBeUndefined();
    const { interactionId } = await openInteraction(h.request, f);
    const res = await nativePost(h.request, f, '/password', { interaction_id: interactionId, email: EMAIL, password: 'another password' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_credentials' });
    // Still there: the account recovers with a new password (recovery), not by signing in.
    expect((await h.services.users.findById(f.tenant.tenant.id, f.userId))!.importedPasswordHash).toBe(hash);
  });
});
