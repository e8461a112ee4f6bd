import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/crypto';
import { assertThat } from '../../platform/http/errors';
import { ARGON2ID, loadArgon2, type Argon2Options } from '../../platform/native';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { UserErrors } from './errors';
import { checkUserCreate, checkUserUpdate } from './schemas';
import { validInput } from '../../platform/http/schema';
import type { ImportedUserRow, UserRow, UserStore } from './store';
import { onUnique, UniqueViolation } from '../../platform/store/sql';
import type { AuditActor, AuditTx } from '../audit';
import { verifyImportedHash } from '../transfer/hashes';
import { createPasswordCheck, DEFAULT_KDFS, type PasswordKdfs } from './password-check';

export type { PasswordKdfs };

/** The User object of spec 03. */
export interface UserView {
  id: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  status: UserRow['status'];
  createdAt: string;
}

/** OWASP Password Storage Cheat Sheet: argon2id, m=19 MiB, t=2, p=1. */
export const PASSWORD_HASH_OPTIONS: Argon2Options = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

type Stores = { users: UserStore } & AuditTx;

/**
 * What a caller adds to a change of a user: `authorize` runs in the change's transaction with
 * the user as read there, and refuses by throwing (the management API's operator rank, issue 21).
 */
export interface ChangeOptions<S> {
  authorize?: (tx: S, user: UserRow) => Promise<void>;
}

/** A transaction's stores, for contexts that create users or change passwords in their own transaction. */
export type UserTx = { users: UserStore };
export type { ImportedUserRow };

export function toUserView(u: UserRow): UserView {
  return { id: u.id, subject: u.subject, email: u.email, emailVerified: u.emailVerified, status: u.status, createdAt: u.createdAt };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Tenant password policy (the contract leaves it open; docs/decisions.md). */
export function checkPasswordPolicy(password: string): string | undefined {
  if (typeof password !== 'string' || password.length < 8) return 'password must be at least 8 characters';
  if (password.length > 1024) return 'password must be at most 1024 characters';
  return undefined;
}

/** The user, or unknown_user (404 on the management API) when not in this tenant. */
async function found(tx: Stores, tenantId: string, userId: string): Promise<UserRow> {
  const u = await tx.users.findById(tenantId, userId);
  assertThat(u, UserErrors.unknown(userId));
  return u;
}

export function createUserService<S extends Stores>(deps: {
  store: S & TxRunner<S>;
  clock: Clock;
  /** The key derivations of password checks (tests pass recording ones); argon2id and transfer/hashes by default. */
  kdfs?: PasswordKdfs;
  /** Called inside the deletion's transaction (services.ts wires the OAuth grants and browser sessions). */
  endAccess?: (tx: S, tenantId: string, user: { id: string; subject: string }) => Promise<void>;
  /** Called inside a password change's transaction when the user signs out elsewhere (services.ts: grants, other browser sessions). */
  endOtherAccess?: (tx: S, tenantId: string, userId: string, keepSessionId: string) => Promise<void>;
  /** Called inside an administrator's password reset (services.ts: grants, refresh tokens, every browser session, as recovery does). */
  endSignIns?: (tx: S, tenantId: string, userId: string) => Promise<void>;
}) {
  const { store, clock } = deps;
  const hashPassword = (password: string) => loadArgon2().hash(password, PASSWORD_HASH_OPTIONS);
  const checkPassword = createPasswordCheck({ kdfs: deps.kdfs ?? DEFAULT_KDFS, hashPassword });

  /**
   * The re-hash hook of imported accounts (issue 12): a hash brought by an import (bcrypt,
   * PBKDF2, Firebase scrypt…) is verified once, at the first sign-in with the right password,
   * and replaced then with argon2id, hashed before the transaction; the next sign-in uses that.
   */
  async function rehashImported(user: UserRow, password: string): Promise<UserRow> {
    const imported = user.importedPasswordHash!;
    const passwordHash = await hashPassword(password);
    const now = clock.now().toISOString();
    await store.tx((tx) => tx.users.replaceImportedHash(user.tenantId, user.id, imported, passwordHash, now));
    return user;
  }

  return {
    hashPassword,

    /** A bulk import's users (identity/transfer), set-oriented. Called inside the importer's transaction, it joins it (platform/store/tx-frame.ts). */
    importUsers(tenantId: string, rows: readonly ImportedUserRow[], now: string): Promise<void> {
      return store.tx((tx) => tx.users.insertImported(tenantId, rows, now));
    },
    /** Which of `emails` (lower-cased) users of the tenant have. Called inside the importer's transaction, it joins it (platform/store/tx-frame.ts). */
    takenEmails(tenantId: string, emails: readonly string[]): Promise<Set<string>> {
      return store.tx((tx) => tx.users.takenEmails(tenantId, emails));
    },

    /** Creates a user; the password is hashed before the transaction, never inside. */
    async create(tenantId: string, input: { email: string; emailVerified?: boolean; password?: string }, actor: AuditActor): Promise<UserView> {
      validInput(checkUserCreate, input, UserErrors.invalid);
      const email = normalizeEmail(input.email);
      let passwordHash: string | null = null;
      if (input.password !== undefined) {
        const problem = checkPasswordPolicy(input.password);
        assertThat(!problem, UserErrors.invalidPassword(problem!));
        passwordHash = await hashPassword(input.password);
      }
      const id = newId();
      await store.tx(async (tx) => {
        // (tenant, email) is unique: a concurrent twin fails its insert.
        assertThat(!(await tx.users.findByEmail(tenantId, email)), UserErrors.conflict(`a user with email ${email} exists`));
        const now = clock.now().toISOString();
        await tx.users
          .insert({ id, tenantId, subject: newId(), email, emailVerified: input.emailVerified ?? false, passwordHash, createdAt: now, updatedAt: now })
          .catch(onUnique(() => UserErrors.conflict(`a user with email ${email} exists`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'user.created', targetType: 'user', targetId: id, details: { email, emailVerified: input.emailVerified ?? false } });
      });
      return toUserView((await store.users.findById(tenantId, id))!);
    },

    /** GET /tenants/{tenantId}/users/{userId}: unknown_user when not in this tenant. */
    async get(tenantId: string, userId: string): Promise<UserView> {
      return toUserView(await found(store, tenantId, userId));
    },

    /**
     * A page of users, oldest first (size + 1 rows read: hasMore without a count); with
     * `emailContains`, only those whose address contains it, case-insensitively (`engage users list --email`).
     */
    async page(tenantId: string, page: number, size: number, filter: { emailContains?: string } = {}): Promise<{ items: UserView[]; hasMore: boolean }> {
      const rows = await store.users.listPage(tenantId, page * size, size + 1, filter.emailContains?.toLowerCase());
      return { items: rows.slice(0, size).map(toUserView), hasMore: rows.length > size };
    },

    /**
     * PUT /tenants/{tenantId}/users/{userId} (spec 03): replaces email, emailVerified and status.
     * A DISABLED user cannot sign in and their live access tokens are inactive from the next
     * request (the token state moves with the status); nothing is revoked, so enabling the user
     * again brings back what has not expired, as for clients (docs/decisions.md).
     * An email change resets emailVerified unless the same call sets it (issue 21): nobody has
     * proved control of the new address, and recovery mails its codes there.
     */
    async update(
      tenantId: string, userId: string, input: { email: string; emailVerified?: boolean; status: UserRow['status'] }, actor: AuditActor, opts: ChangeOptions<S> = {},
    ): Promise<UserView> {
      validInput(checkUserUpdate, input, UserErrors.invalid);
      const email = normalizeEmail(input.email);
      await store.tx(async (tx) => {
        const u = await found(tx, tenantId, userId);
        await opts.authorize?.(tx, u);
        if (email !== u.email) assertThat(!(await tx.users.findByEmail(tenantId, email)), UserErrors.conflict(`a user with email ${email} exists`));
        const emailVerified = input.emailVerified ?? (email === u.email ? u.emailVerified : false);
        const changes: Record<string, unknown> = {};
        if (email !== u.email) changes.email = email;
        if (emailVerified !== u.emailVerified) changes.emailVerified = emailVerified;
        if (input.status !== u.status) changes.status = input.status;
        if (Object.keys(changes).length === 0) return;
        await tx.users
          .update(tenantId, userId, { email, emailVerified, status: input.status, updatedAt: clock.now().toISOString() })
          .catch(onUnique(() => UserErrors.conflict(`a user with email ${email} exists`)));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'user.updated', targetType: 'user', targetId: userId, details: changes });
      });
      return this.get(tenantId, userId);
    },

    /** `users disable|enable`: the status alone (the same rules as update). */
    async setStatus(tenantId: string, userId: string, status: UserRow['status'], actor: AuditActor, opts: ChangeOptions<S> = {}): Promise<UserView> {
      const u = await this.get(tenantId, userId);
      return this.update(tenantId, userId, { email: u.email, emailVerified: u.emailVerified, status }, actor, opts);
    },

    /**
     * DELETE /tenants/{tenantId}/users/{userId}: the user is removed, and in the same transaction
     * everything they hold ends: grants, refresh tokens and codes at every client (their access
     * tokens turn inactive at once), browser sign-ins; factors and upstream links go with the row.
     */
    async delete(tenantId: string, userId: string, actor: AuditActor, opts: ChangeOptions<S> = {}): Promise<void> {
      await store.tx(async (tx) => {
        const u = await found(tx, tenantId, userId);
        await opts.authorize?.(tx, u);
        await deps.endAccess?.(tx, tenantId, u);
        assertThat((await tx.users.delete(tenantId, userId)) === 1, UserErrors.unknown(userId));
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'user.deleted', targetType: 'user', targetId: userId, details: { subject: u.subject } });
      });
    },

    /**
     * An ACTIVE user with a verified email and a password hashed beforehand, in the caller's
     * transaction (native registration). False when the email is taken, by a concurrent twin too.
     */
    async createVerifiedIn(tx: UserTx & TxScope, tenantId: string, email: string, passwordHash: string): Promise<boolean> {
      const normalized = normalizeEmail(email);
      if (await tx.users.findByEmail(tenantId, normalized)) return false;
      const now = clock.now().toISOString();
      try {
        // In a savepoint: on PostgreSQL a failed statement would otherwise abort the caller's whole transaction.
        await tx.savepoint(() => tx.users.insert({ id: newId(), tenantId, subject: newId(), email: normalized, emailVerified: true, passwordHash, createdAt: now, updatedAt: now }));
      } catch (e) {
        if (e instanceof UniqueViolation) return false;
        throw e;
      }
      return true;
    },

    /** The user proved control of the address (a code mailed to it came back). */
    async markEmailVerified(tenantId: string, userId: string): Promise<void> {
      await store.tx((tx) => tx.users.update(tenantId, userId, { emailVerified: true, updatedAt: clock.now().toISOString() }));
    },

    /** Replaces the password hash (hashed beforehand), in the caller's transaction. */
    async setPasswordHashIn(tx: UserTx, tenantId: string, userId: string, passwordHash: string): Promise<void> {
      await tx.users.update(tenantId, userId, { passwordHash, updatedAt: clock.now().toISOString() });
    },

    /** Whether `password` is the user's current one (recovery refuses to "replace" it with itself). */
    async isCurrentPassword(user: UserRow, password: string): Promise<boolean> {
      if (user.passwordHash) return loadArgon2().verify(user.passwordHash, password);
      return !!user.importedPasswordHash && (await verifyImportedHash(user.importedPasswordHash, password));
    },

    /**
     * Creates a passwordless user inside the caller's transaction (so a link to an upstream
     * identity commits with it). A taken email is a UniqueViolation or a conflict.
     */
    async createInTx(tx: UserTx, tenantId: string, input: { email: string; emailVerified: boolean }): Promise<string> {
      validInput(checkUserCreate, input, UserErrors.invalid);
      const email = normalizeEmail(input.email);
      assertThat(!(await tx.users.findByEmail(tenantId, email)), UserErrors.conflict(`a user with email ${email} exists`));
      const id = newId();
      const now = clock.now().toISOString();
      await tx.users.insert({ id, tenantId, subject: newId(), email, emailVerified: input.emailVerified, passwordHash: null, createdAt: now, updatedAt: now });
      return id;
    },

    async list(tenantId: string): Promise<UserView[]> {
      return (await store.users.list(tenantId)).map(toUserView);
    },

    findById(tenantId: string, userId: string): Promise<UserRow | undefined> {
      return store.users.findById(tenantId, userId);
    },

    findBySubject(tenantId: string, subject: string): Promise<UserRow | undefined> {
      return store.users.findBySubject(tenantId, subject);
    },

    findByEmail(tenantId: string, email: string): Promise<UserRow | undefined> {
      return store.users.findByEmail(tenantId, normalizeEmail(email));
    },

    /**
     * Replaces a user's password after the caller has checked the current one (the account
     * page, issue 10); the tenant's policy applies and the hash is made before the transaction.
     * `signOutOthers`: in the same transaction, end what the old password opened elsewhere (the
     * user's grants and refresh tokens, their other browser sessions), keeping the browser
     * session that made the change (issue 21; recovery ends them all).
     */
    async changePassword(tenantId: string, userId: string, password: string, signOutOthers?: { keepSessionId: string }): Promise<void> {
      const problem = checkPasswordPolicy(password);
      assertThat(!problem, UserErrors.invalidPassword(problem!));
      const passwordHash = await hashPassword(password);
      await store.tx(async (tx) => {
        await tx.users.update(tenantId, userId, { passwordHash, updatedAt: clock.now().toISOString() });
        if (signOutOthers) await deps.endOtherAccess?.(tx, tenantId, userId, signOutOthers.keepSessionId);
      });
    },

    /**
     * An administrator sets a user's password (`engage users set-password`, the management API's
     * POST …/users/{userId}/password; issue 23 point 6): the registration policy applies, the hash
     * is made before the transaction, and in it, as after a recovery, everything the old password
     * opened ends (grants and refresh tokens at every client, every browser session). Audited as
     * `user.password_set`, without the password. The status is left as it is.
     */
    async setPassword(tenantId: string, userId: string, password: string, actor: AuditActor, opts: ChangeOptions<S> = {}): Promise<UserView> {
      const problem = checkPasswordPolicy(password);
      assertThat(!problem, UserErrors.invalidPassword(problem!));
      const passwordHash = await hashPassword(password);
      await store.tx(async (tx) => {
        const u = await found(tx, tenantId, userId);
        await opts.authorize?.(tx, u);
        await tx.users.update(tenantId, userId, { passwordHash, updatedAt: clock.now().toISOString() });
        await deps.endSignIns?.(tx, tenantId, userId);
        await tx.audit.record(actor, { at: clock.now(), tenantId, action: 'user.password_set', targetType: 'user', targetId: userId, details: {} });
      });
      return this.get(tenantId, userId);
    },

    /**
     * The ACTIVE user with this email and password, or undefined, after the same work whatever
     * the account (none, without a password, native, imported, disabled): ./password-check.ts.
     */
    async verifyPassword(tenantId: string, email: string, password: string): Promise<UserRow | undefined> {
      const { user, importedSample } = await store.users.findForPasswordCheck(tenantId, typeof email === 'string' ? normalizeEmail(email) : '');
      const matched = await checkPassword(user, importedSample, password);
      if (!user || !matched || user.status !== 'ACTIVE') return undefined;
      return matched === 'imported' ? rehashImported(user, password) : user;
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
