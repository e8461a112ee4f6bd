import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { signingKeys } from '../../db/schema';

export type SigningKeyRow = typeof signingKeys.$inferSelect;
export type KeyState = SigningKeyRow['state'];

export function createKeyStore(db: Db) {
  // Signing and verification look keys up on every token: prepared once, bound per call.
  const byKid = db
    .select()
    .from(signingKeys)
    .where(and(eq(signingKeys.tenantId, sql.placeholder('tenantId')), eq(signingKeys.kid, sql.placeholder('kid'))))
    .prepare();
  const activeKey = db
    .select()
    .from(signingKeys)
    .where(and(eq(signingKeys.tenantId, sql.placeholder('tenantId')), eq(signingKeys.state, 'ACTIVE')))
    .prepare();
  return {
    insert(row: typeof signingKeys.$inferInsert): void {
      db.insert(signingKeys).values(row).run();
    },
    find(tenantId: string, kid: string): SigningKeyRow | undefined {
      return byKid.get({ tenantId, kid });
    },
    listForTenant(tenantId: string): SigningKeyRow[] {
      return db.select().from(signingKeys).where(eq(signingKeys.tenantId, tenantId)).orderBy(asc(signingKeys.createdAt), sql`rowid`).all();
    },
    inStates(tenantId: string, states: KeyState[]): SigningKeyRow[] {
      return db
        .select()
        .from(signingKeys)
        .where(and(eq(signingKeys.tenantId, tenantId), inArray(signingKeys.state, states)))
        .orderBy(asc(signingKeys.createdAt), sql`rowid`)
        .all();
    },
    active(tenantId: string): SigningKeyRow | undefined {
      return activeKey.get({ tenantId });
    },
    setState(kid: string, patch: Partial<Pick<SigningKeyRow, 'state' | 'activatedAt' | 'retiredAt' | 'retireAfter'>>): void {
      db.update(signingKeys).set(patch).where(eq(signingKeys.kid, kid)).run();
    },
    /** RETIRING keys whose last token has expired become RETIRED. */
    retireExpired(nowSeconds: number, nowIso: string): number {
      return db
        .update(signingKeys)
        .set({ state: 'RETIRED', retiredAt: nowIso })
        .where(and(eq(signingKeys.state, 'RETIRING'), lte(signingKeys.retireAfter, nowSeconds)))
        .run().changes;
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
