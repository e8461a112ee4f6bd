import type { Clock } from '../../platform/clock';
import { newId, type Sealer } from '../../platform/crypto';
import { findString } from '../../platform/http/body';
import { hasNul, NUL_REASON } from '../../platform/http/json-bounds';
import { UniqueViolation } from '../../platform/store/sql';
import type { TxRunner, TxScope } from '../../platform/store/store';
import { normalizeEmail } from '../users/service';
import { RecordError } from './errors';
import { checkImportedHash } from './hashes';
import { uuidV7 } from './ids';
import { checkImportRecord, SCHEMA_VERSION, type ImportMode, type ImportRecord } from './schemas';
import type { TransferStore } from './store';
import type { ImportedUserRow, UserService } from '../users/service';
import type { MfaService } from '../mfa/service';

/** One record to import, at its position in the whole import (0-based). */
export interface ImportItem {
  position: number;
  /** The parsed JSON value, or MALFORMED when its line was not JSON. */
  record: unknown;
}

export const MALFORMED: unique symbol = Symbol('malformed');

export interface ImportOutcome {
  position: number;
  externalId: string | null;
  email: string | null;
  /** SKIPPED: (source, externalId) was imported before and the caller asked to skip those (CLI reruns). */
  status: 'SUCCEEDED' | 'FAILED' | 'SKIPPED';
  subject: string | null;
  errorCode: string | null;
  /** For people (the CLI's report): what was wrong, never a secret. */
  detail?: string;
}

type Stores = { transfer: TransferStore };

/** What the importer asks of the providers context: the tenant's providers, and the upstream identities it owns. */
export interface ProviderDirectory {
  list(tenantId: string): Promise<{ name: string; issuer: string }[]>;
  linkedIdentities(tenantId: string, pairs: readonly { issuer: string; subject: string }[]): Promise<Set<string>>;
  importIdentities(tenantId: string, rows: readonly { userId: string; issuer: string; subject: string; provider: string }[], now: string): Promise<void>;
}
export type ImportTx = Stores & TxScope;

export interface ImportOptions {
  /**
   * What a record whose (source, externalId) exists becomes: FAILED duplicate_external_id, or
   * SKIPPED when the existing user has the record's email (a rerun: the CLI resumes this way).
   */
  existing: 'fail' | 'skip';
  /** Runs in the batch's transaction after its writes (jobs record results and progress there). */
  inTx?: (tx: ImportTx, outcomes: ImportOutcome[]) => Promise<void>;
}

interface Candidate {
  item: ImportItem;
  record: ImportRecord;
  row: ImportedUserRow;
  totpSealed: string | null;
  identities: { issuer: string; subject: string; provider: string }[];
}

/** A record's own text for its outcome; none when it holds NUL, which no store may keep (an API job stores outcomes). */
const text = (v: unknown): string | null => (typeof v === 'string' && !hasNul(v) ? v : null);

const failed = (item: ImportItem, code: string, detail: string, r?: { externalId?: unknown; email?: unknown }): ImportOutcome => ({
  position: item.position,
  externalId: text(r?.externalId),
  email: text(r?.email),
  status: 'FAILED',
  subject: null,
  errorCode: code,
  detail,
});

/** Where identity/mfa seals a TOTP secret (service.ts `aad`): bound to tenant and user. */
const totpAad = (tenantId: string, userId: string) => `totp|${tenantId}|${userId}`;

/**
 * The import of one batch of records (issue 12), shared by the CLI and the API job worker:
 * records are checked one by one outside the transaction (each failure is an outcome, never an
 * exception), TOTP secrets are sealed before it, and one transaction reads what is taken with
 * set-oriented queries and writes every good record with multi-row INSERTs.
 */
export interface ImporterDeps {
  store: Stores & TxRunner<Stores>;
  clock: Clock;
  sealer: Sealer;
  /** The owners of what an import writes besides its own tables (db/owners.ts): users, their TOTP factors and upstream identities. */
  users: Pick<UserService, 'importUsers' | 'takenEmails'>;
  mfa: Pick<MfaService, 'importTotpFactors'>;
  providers: ProviderDirectory;
}

export function createImporter(deps: ImporterDeps) {
  const { store, clock, sealer, users, mfa } = deps;
  // Records this process has created, and the count at which planner statistics are refreshed
  // next: after the first 1,000, then each time the count doubles (a logarithmic number of ANALYZEs).
  let created = 0;
  let analyzeAt = 1_000;

  async function importBatch(tenantId: string, source: string, mode: ImportMode, items: ImportItem[], opts: ImportOptions): Promise<ImportOutcome[]> {
    const list = await importOnce(tenantId, source, mode, items, opts);
    if (mode === 'CREATE_ONLY') created += list.filter((o) => o.status === 'SUCCEEDED').length;
    if (created >= analyzeAt) {
      analyzeAt = created * 2;
      await store.transfer.refreshStatistics();
    }
    return list;
  }

  async function importOnce(tenantId: string, source: string, mode: ImportMode, items: ImportItem[], opts: ImportOptions): Promise<ImportOutcome[]> {
    const outcomes = new Map<number, ImportOutcome>();
    const candidates: Candidate[] = [];
    const providers = new Map((await deps.providers.list(tenantId)).map((p) => [p.name, p.issuer]));
    const emails = new Set<string>();
    const externalIds = new Set<string>();
    const links = new Set<string>();

    for (const item of items) {
      const v = item.record;
      if (v === MALFORMED) {
        outcomes.set(item.position, failed(item, RecordError.malformed, 'not a JSON object'));
        continue;
      }
      // Both store engines refuse NUL in text (NulInText): caught here, the record fails alone
      // instead of its batch's transaction. The field is named with the NUL written out.
      const nulAt = typeof v === 'object' && v !== null ? findString(v, hasNul) : undefined;
      if (nulAt !== undefined) {
        outcomes.set(item.position, failed(item, RecordError.nulCharacter, `${nulAt.replaceAll('\0', '\\u0000')}: ${NUL_REASON}`, v as Record<string, unknown>));
        continue;
      }
      const bad = checkImportRecord(v);
      const r = v as ImportRecord;
      if (bad) {
        const code = bad.field === 'schemaVersion' ? RecordError.schemaVersion : RecordError.malformed;
        outcomes.set(item.position, failed(item, code, bad.message, v as Record<string, unknown>));
        continue;
      }
      if (r.schemaVersion !== undefined && r.schemaVersion !== SCHEMA_VERSION) {
        outcomes.set(item.position, failed(item, RecordError.schemaVersion, `schemaVersion: must be ${SCHEMA_VERSION}`, r));
        continue;
      }
      const email = normalizeEmail(r.email);
      const hash = r.password ? checkImportedHash(r.password.hash) : null;
      if (r.password && !hash) {
        outcomes.set(item.position, failed(item, RecordError.unknownHashFormat, 'password.hash: not a hash format we can verify', r));
        continue;
      }
      if (hash?.outOfBounds) {
        outcomes.set(item.position, failed(item, RecordError.hashCostOutOfBounds, `password.hash: ${hash.outOfBounds}`, r));
        continue;
      }
      const format = hash?.format ?? null;
      if (externalIds.has(r.externalId)) {
        outcomes.set(item.position, failed(item, RecordError.duplicateExternalId, 'externalId: appears twice in the import', r));
        continue;
      }
      externalIds.add(r.externalId);
      if (emails.has(email)) {
        outcomes.set(item.position, failed(item, RecordError.duplicateEmail, 'email: appears twice in the import', r));
        continue;
      }
      const identities: Candidate['identities'] = [];
      let problem: ImportOutcome | undefined;
      for (const [i, id] of (r.identities ?? []).entries()) {
        const issuer = providers.get(id.provider);
        if (!issuer) problem ??= failed(item, RecordError.unknownProvider, `identities[${i}].provider: no identity provider ${id.provider} in this tenant`, r);
        else if (links.has(`${issuer} ${id.subject}`) || identities.some((x) => x.issuer === issuer && x.subject === id.subject)) {
          problem ??= failed(item, RecordError.duplicateIdentity, `identities[${i}]: linked twice`, r);
        } else identities.push({ issuer, subject: id.subject, provider: id.provider });
      }
      if (problem) {
        outcomes.set(item.position, problem);
        continue;
      }
      emails.add(email);
      for (const id of identities) links.add(`${id.issuer} ${id.subject}`);
      const userId = uuidV7();
      candidates.push({
        item,
        record: r,
        identities,
        // Sealed before the transaction (DESIGN.md "Storage": no crypto inside), and only when it will be written.
        totpSealed: r.totp && mode === 'CREATE_ONLY' ? sealer.seal(r.totp.secret.replace(/=+$/, '').toUpperCase(), totpAad(tenantId, userId)) : null,
        row: {
          id: userId,
          externalId: r.externalId,
          subject: newId(),
          email,
          emailVerified: r.emailVerified,
          status: r.active ? 'ACTIVE' : 'DISABLED',
          importedPasswordHash: r.password?.hash ?? null,
          importedPasswordFormat: format ?? null,
        },
      });
    }

    // A concurrent import (another process) may take an email or external id between our read
    // and our insert: the unique index refuses it, the transaction rolls back, and the next
    // attempt reads it as taken.
    for (let attempt = 1; ; attempt++) {
      try {
        return await store.tx(async (tx) => {
          const all = new Map(outcomes);
          const now = clock.now().toISOString();
          const imported = await tx.transfer.importedFrom(tenantId, source, candidates.map((c) => c.row.externalId));
          const taken = await users.takenEmails(tenantId, candidates.map((c) => c.row.email));
          const linked = await deps.providers.linkedIdentities(tenantId, candidates.flatMap((c) => c.identities));
          const good: Candidate[] = [];
          for (const c of candidates) {
            const prior = imported.get(c.row.externalId);
            if (prior !== undefined) {
              // A rerun finds the same account (same email) imported before: skipped when asked.
              all.set(c.item.position, opts.existing === 'skip' && prior.email === c.row.email
                ? { position: c.item.position, externalId: c.row.externalId, email: c.row.email, status: 'SKIPPED', subject: prior.subject, errorCode: null }
                : failed(c.item, RecordError.duplicateExternalId, `externalId: already imported from ${source}`, c.record));
            } else if (taken.has(c.row.email)) {
              all.set(c.item.position, failed(c.item, RecordError.duplicateEmail, 'email: a user of this tenant has it', c.record));
            } else if (c.identities.some((i) => linked.has(`${i.issuer} ${i.subject}`))) {
              all.set(c.item.position, failed(c.item, RecordError.duplicateIdentity, 'identities: already linked to a user', c.record));
            } else {
              good.push(c);
              const subject = mode === 'CREATE_ONLY' ? c.row.subject : null;
              all.set(c.item.position, { position: c.item.position, externalId: c.row.externalId, email: c.row.email, status: 'SUCCEEDED', subject, errorCode: null });
            }
          }
          if (mode === 'CREATE_ONLY' && good.length > 0) {
            await users.importUsers(tenantId, good.map((c) => c.row), now);
            await tx.transfer.insertSources(tenantId, source, good.map((c) => ({ externalId: c.row.externalId, userId: c.row.id })), now);
            const totp = good.filter((c) => c.totpSealed).map((c) => ({ userId: c.row.id, secretSealed: c.totpSealed! }));
            if (totp.length) await mfa.importTotpFactors(tenantId, totp, now);
            const ids = good.flatMap((c) => c.identities.map((i) => ({ ...i, userId: c.row.id })));
            if (ids.length) await deps.providers.importIdentities(tenantId, ids, now);
          }
          const list = items.map((i) => all.get(i.position)!);
          await opts.inTx?.(tx, list);
          return list;
        });
      } catch (e) {
        if (!(e instanceof UniqueViolation) || attempt >= 3) throw e;
      }
    }
  }

  return { importBatch };
}

export type Importer = ReturnType<typeof createImporter>;
