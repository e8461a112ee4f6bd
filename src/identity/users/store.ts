import type { users } from '../../db/schema';
import { inList, insertMany, INSERT_ROWS, updateStatement, type Sql } from '../../platform/store/sql';

export type UserRow = typeof users.$inferSelect;
type Optional = 'status' | 'emailVerified' | 'passwordHash' | 'importedPasswordHash' | 'importedPasswordFormat';
export type NewUserRow = Omit<UserRow, Optional> & Partial<Pick<UserRow, Optional>>;

const COLUMNS = `id, tenant_id AS "tenantId", subject, email, email_verified AS "emailVerified", password_hash AS "passwordHash",
  status, created_at AS "createdAt", updated_at AS "updatedAt",
  imported_password_hash AS "importedPasswordHash", imported_password_format AS "importedPasswordFormat"`;

type Raw = Omit<UserRow, 'emailVerified'> & { emailVerified: number };

const fromRaw = (r: Raw): UserRow => ({ ...r, emailVerified: r.emailVerified === 1 });

const SQL = {
  insert: `INSERT INTO users (id, tenant_id, subject, email, email_verified, password_hash, status, created_at, updated_at,
      imported_password_hash, imported_password_format)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // Only while the imported hash is still the one verified: a password set meanwhile stands.
  rehash: `UPDATE users SET password_hash = ?, imported_password_hash = NULL, imported_password_format = NULL, updated_at = ?
    WHERE tenant_id = ? AND id = ? AND imported_password_hash = ?`,
  byEmail: `SELECT ${COLUMNS} FROM users WHERE tenant_id = ? AND email = ?`,
  byId: `SELECT ${COLUMNS} FROM users WHERE tenant_id = ? AND id = ?`,
  bySubject: `SELECT ${COLUMNS} FROM users WHERE tenant_id = ? AND subject = ?`,
  list: `SELECT ${COLUMNS} FROM users WHERE tenant_id = ? ORDER BY created_at, email`,
  listPage: `SELECT ${COLUMNS} FROM users WHERE tenant_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
  // `engage users list --email` (issue 23 point 10): a substring of the lower-cased address, LIKE's
  // wildcards in it escaped so that `_` and `%` match themselves.
  listPageByEmail: `SELECT ${COLUMNS} FROM users WHERE tenant_id = ? AND email LIKE ? ESCAPE '\\' ORDER BY created_at, id LIMIT ? OFFSET ?`,
  delete: `DELETE FROM users WHERE tenant_id = ? AND id = ?`,
  // The account, if any, and one of the tenant's imported hashes, if any (partial index
  // users_tenant_imported), in one round trip: what a password check needs (issue 21).
  forPasswordCheck: `SELECT (SELECT s.imported_password_hash FROM users s
      WHERE s.tenant_id = ? AND s.imported_password_hash IS NOT NULL LIMIT 1) AS "importedSample",
    ${COLUMNS.split(',').map((c) => `u.${c.trim()}`).join(', ')}
    FROM (SELECT 1 AS one) o LEFT JOIN users u ON u.tenant_id = ? AND u.email = ?`,
} as const;

/** What `update` may change, with its column. */
const CHANGE_COLUMNS = {
  email: 'email',
  emailVerified: 'email_verified',
  passwordHash: 'password_hash',
  status: 'status',
  updatedAt: 'updated_at',
  importedPasswordHash: 'imported_password_hash',
  importedPasswordFormat: 'imported_password_format',
} as const;
const update = updateStatement('users', CHANGE_COLUMNS, 'tenant_id = ? AND id = ?');

export type UserChange = Partial<Pick<UserRow, keyof typeof CHANGE_COLUMNS>>;

/** A user as a bulk import creates it (identity/transfer): no password of ours, perhaps an imported hash. */
export interface ImportedUserRow {
  id: string;
  externalId: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  status: 'ACTIVE' | 'DISABLED';
  importedPasswordHash: string | null;
  importedPasswordFormat: string | null;
}

export function createUserStore(db: Sql) {
  const one = async (text: string, tenantId: string, v: string): Promise<UserRow | undefined> => {
    const r = await db.get<Raw>(text, [tenantId, v]);
    return r && fromRaw(r);
  };
  return {
    /** Imported users, set-oriented (multi-row inserts of INSERT_ROWS). */
    async insertImported(tenantId: string, rows: readonly ImportedUserRow[], now: string): Promise<void> {
      await insertMany(db, rows, 11,
        `INSERT INTO users (id, tenant_id, subject, email, email_verified, password_hash, status, created_at, updated_at,
          imported_password_hash, imported_password_format)`,
        (r) => [r.id, tenantId, r.subject, r.email, r.emailVerified ? 1 : 0, null, r.status, now, now, r.importedPasswordHash, r.importedPasswordFormat]);
    },
    /** Which of `emails` (lower-cased) are taken in the tenant. */
    async takenEmails(tenantId: string, emails: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < emails.length; i += INSERT_ROWS) {
        const slice = emails.slice(i, i + INSERT_ROWS);
        const rows = await db.all<{ email: string }>(`SELECT email FROM users WHERE tenant_id = ? AND email IN (${inList(slice.length)})`, [tenantId, ...slice]);
        for (const r of rows) out.add(r.email);
      }
      return out;
    },
    async insert(r: NewUserRow): Promise<void> {
      await db.run(SQL.insert, [
        r.id, r.tenantId, r.subject, r.email, r.emailVerified ? 1 : 0, r.passwordHash ?? null, r.status ?? 'ACTIVE', r.createdAt, r.updatedAt,
        r.importedPasswordHash ?? null, r.importedPasswordFormat ?? null,
      ]);
    },
    /** `email` is already lower-cased by the service. */
    findByEmail(tenantId: string, email: string): Promise<UserRow | undefined> {
      return one(SQL.byEmail, tenantId, email);
    },
    findById(tenantId: string, id: string): Promise<UserRow | undefined> {
      return one(SQL.byId, tenantId, id);
    },
    findBySubject(tenantId: string, subject: string): Promise<UserRow | undefined> {
      return one(SQL.bySubject, tenantId, subject);
    },
    async list(tenantId: string): Promise<UserRow[]> {
      return (await db.all<Raw>(SQL.list, [tenantId])).map(fromRaw);
    },
    /**
     * The user with this (lower-cased) email, if any, and one imported hash of the tenant not yet
     * re-hashed, if any: the tenant's kind and cost of imported hash, which a password check
     * spends on every account alike (users/service.ts `verifyPassword`).
     */
    async findForPasswordCheck(tenantId: string, email: string): Promise<{ user?: UserRow; importedSample?: string }> {
      const r = (await db.get<Raw & { importedSample: string | null }>(SQL.forPasswordCheck, [tenantId, tenantId, email]))!;
      const { importedSample, ...row } = r;
      return { user: row.id ? fromRaw(row) : undefined, importedSample: importedSample ?? undefined };
    },
    /** With `emailContains` (already lower-cased), only the users whose address contains it. */
    async listPage(tenantId: string, offset: number, limit: number, emailContains?: string): Promise<UserRow[]> {
      if (emailContains === undefined) return (await db.all<Raw>(SQL.listPage, [tenantId, limit, offset])).map(fromRaw);
      const pattern = `%${emailContains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return (await db.all<Raw>(SQL.listPageByEmail, [tenantId, pattern, limit, offset])).map(fromRaw);
    },
    /** Removes the user; their factors, links, grants, codes and consents go with the row (ON DELETE CASCADE). */
    delete(tenantId: string, id: string): Promise<number> {
      return db.run(SQL.delete, [tenantId, id]);
    },
    async update(tenantId: string, id: string, change: UserChange): Promise<void> {
      // A password set by any path replaces an imported hash not yet verified (issue 12).
      const u = update(change.passwordHash !== undefined ? { ...change, importedPasswordHash: null, importedPasswordFormat: null } : change);
      if (u) await db.run(u.text, [...u.values, tenantId, id]);
    },
    /**
     * Replaces a verified imported hash with its argon2id re-hash; false when the imported hash
     * changed meanwhile (a concurrent sign-in re-hashed it first, or a new password was set).
     */
    async replaceImportedHash(tenantId: string, id: string, verified: string, passwordHash: string, now: string): Promise<boolean> {
      return (await db.run(SQL.rehash, [passwordHash, now, tenantId, id, verified])) === 1;
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
