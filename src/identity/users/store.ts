import type BetterSqlite3 from 'better-sqlite3';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/store/sqlite';
import { users } from '../../db/schema';

export type UserRow = typeof users.$inferSelect;

const COLUMNS = `id, tenant_id AS tenantId, subject, email, email_verified AS emailVerified, password_hash AS passwordHash,
  status, created_at AS createdAt, updated_at AS updatedAt`;

function fix(r: (Omit<UserRow, 'emailVerified'> & { emailVerified: number }) | undefined): UserRow | undefined {
  return r && { ...r, emailVerified: r.emailVerified === 1 };
}

export function createUserStore(db: Db) {
  let byEmail: BetterSqlite3.Statement | undefined;
  let byId: BetterSqlite3.Statement | undefined;
  return {
    insert(row: typeof users.$inferInsert): void {
      db.insert(users).values(row).run();
    },
    /** `email` is already lower-cased by the service. */
    findByEmail(tenantId: string, email: string): UserRow | undefined {
      byEmail ??= db.$client.prepare(`SELECT ${COLUMNS} FROM users WHERE tenant_id = ? AND email = ?`);
      return fix(byEmail.get(tenantId, email) as never);
    },
    findById(tenantId: string, id: string): UserRow | undefined {
      byId ??= db.$client.prepare(`SELECT ${COLUMNS} FROM users WHERE tenant_id = ? AND id = ?`);
      return fix(byId.get(tenantId, id) as never);
    },
    findBySubject(tenantId: string, subject: string): UserRow | undefined {
      return db.select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.subject, subject))).get();
    },
    list(tenantId: string): UserRow[] {
      return db.select().from(users).where(eq(users.tenantId, tenantId)).orderBy(asc(users.createdAt), asc(users.email)).all();
    },
    update(tenantId: string, id: string, patch: Partial<typeof users.$inferInsert>): void {
      db.update(users).set(patch).where(and(eq(users.tenantId, tenantId), eq(users.id, id))).run();
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
