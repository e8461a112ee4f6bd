import { pageOf } from '../../platform/http/pagination';
import { checker, DateTime, Enum, Int64, Nullable, Strict, T, Uuid, type Static } from '../../platform/http/schema';
import { Email } from '../users/schemas';

/**
 * Bulk transfer objects of spec 03, and the parts of an import record the contract leaves to us
 * (password hash, TOTP factor, upstream identities; docs/decisions.md "Bulk user transfer").
 */

export const IMPORT_MODES = ['CREATE_ONLY', 'VALIDATE_ONLY'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];
export const JOB_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'COMPLETED_WITH_ERRORS', 'FAILED', 'CANCELLED'] as const;
/** Spec 03 limits. */
export const MAX_RECORDS_PER_REQUEST = 500;
export const SCHEMA_VERSION = 1;

export const ImportRecord = Strict({
  /** Optional on each NDJSON line of the CLI; when present it must be 1. */
  schemaVersion: T.Optional(T.Integer({ description: 'the import schema version; 1' })),
  externalId: T.String({ minLength: 1, maxLength: 255, description: "the account's id in the source system" }),
  email: Email(),
  emailVerified: T.Boolean(),
  active: T.Boolean({ description: 'false imports the user DISABLED' }),
  password: T.Optional(
    Strict({
      hash: T.String({ minLength: 1, maxLength: 2048, description: 'bcrypt, argon2, scrypt, PBKDF2 (PHC or Django), Firebase scrypt, salted SHA or LDAP {SSHA*} string' }),
    }),
  ),
  totp: T.Optional(
    Strict({
      secret: T.String({ pattern: '^[A-Za-z2-7]{16,128}=*$', description: 'the RFC 6238 shared secret, base32' }),
      algorithm: T.Optional(Enum(['SHA1'] as const)),
      digits: T.Optional(T.Literal(6)),
      period: T.Optional(T.Literal(30)),
    }),
  ),
  identities: T.Optional(
    T.Array(
      Strict({
        provider: T.String({ minLength: 1, maxLength: 100, description: "the name of one of the tenant's identity providers" }),
        subject: T.String({ minLength: 1, maxLength: 255, description: "the upstream issuer's sub for the account" }),
      }),
      { maxItems: 20 },
    ),
  ),
});
export type ImportRecord = Static<typeof ImportRecord>;
export const checkImportRecord = checker(ImportRecord);

export const ImportRequest = Strict({
  schemaVersion: T.Literal(SCHEMA_VERSION),
  source: T.String({ minLength: 1, maxLength: 100, pattern: '^[\\x21-\\x7E]+$', description: 'names the source system; (source, externalId) identifies one account' }),
  mode: Enum(IMPORT_MODES),
  idempotencyKey: T.String({ minLength: 1, maxLength: 255 }),
  // Records are checked one by one (each failure is a result, not a 400): only their count here.
  records: T.Array(T.Unknown(), { minItems: 1, maxItems: MAX_RECORDS_PER_REQUEST }),
});
export type ImportRequest = Static<typeof ImportRequest>;
/** The request as the OpenAPI document shows it: records of the import record shape (each checked on its own). */
export const ImportRequestDoc = Strict({ ...ImportRequest.properties, records: T.Array(ImportRecord, { minItems: 1, maxItems: MAX_RECORDS_PER_REQUEST }) });

/** Export creation body (spec 03: not shown): an optional idempotency key, like imports. */
export const ExportRequest = Strict({ idempotencyKey: T.Optional(T.String({ minLength: 1, maxLength: 255 })) });
export type ExportRequest = Static<typeof ExportRequest>;

export const Job = Strict({
  id: Uuid(),
  tenantId: Uuid(),
  kind: Enum(['IMPORT', 'EXPORT'] as const),
  status: Enum(JOB_STATUSES),
  source: Nullable(T.String()),
  mode: Nullable(T.String()),
  totalItems: Int64(0),
  processedItems: Int64(0),
  succeededItems: Int64(0),
  failedItems: Int64(0),
  createdAt: DateTime(),
  startedAt: Nullable(DateTime()),
  completedAt: Nullable(DateTime()),
  lastFailure: Nullable(T.String()),
});
export type JobView = Static<typeof Job>;

export const ImportResult = Strict({
  position: Int64(0),
  externalId: Nullable(T.String()),
  email: Nullable(T.String()),
  status: Enum(['SUCCEEDED', 'FAILED'] as const),
  subject: Nullable(T.String()),
  errorCode: Nullable(T.String()),
  processedAt: DateTime(),
});

export const ExportRecord = Strict({
  position: Int64(0),
  subject: T.String(),
  email: T.String(),
  emailVerified: T.Boolean(),
  status: T.String(),
  createdAt: DateTime(),
});
export type ExportRecord = Static<typeof ExportRecord>;

export const JobPage = pageOf(Job);
export const ImportResultPage = pageOf(ImportResult);
export const ExportRecordPage = pageOf(ExportRecord);
