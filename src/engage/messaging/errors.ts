import { DomainError } from '../../platform/errors';

/**
 * Problem codes of the transactional send and the template/credential commands. Spec 01 leaves
 * the statuses and codes of send failures open; docs/decisions.md "Transactional push" lists them.
 */
export const MessagingErrors = {
  /** A template file or a send body that does not conform; the message names the field. */
  invalid: (message: string) => new DomainError('invalid', 'invalid_request', message),
  /** A variable missing, unknown or of the wrong type; the message names it (`variables.orderId: …`). */
  invalidVariable: (message: string) => new DomainError('invalid', 'invalid_variables', message),
  /** TEST_GROUP exists only for console test sends (spec 01). */
  recipientTypeNotAllowed: () =>
    new DomainError('invalid', 'recipient_type_not_allowed', 'recipient.type: TEST_GROUP is only for console test sends'),
  /** The rendered message does not fit a provider's payload limit (APNs and FCM: 4 KB). */
  messageTooLarge: (bytes: number) =>
    new DomainError('invalid', 'message_too_large', `message: the rendered push payload is ${bytes} bytes, more than the 4096 the providers accept`),
  /** The template's inbox part rendered for a send is larger than an entry may be (issue 27; docs/templates.md). */
  inboxEntryTooLarge: (bytes: number, max: number) => new DomainError('invalid', 'message_too_large', `inbox: the rendered inbox entry is ${bytes} bytes, more than ${max}`),
  templateNotFound: (key: string) => new DomainError('not_found', 'template_not_found', `template ${key} not found`),
  /** Archived, or never published: only an active published version accepts sends (spec 01). */
  templateNotActive: (key: string) => new DomainError('conflict', 'template_not_active', `template ${key} has no active published version`),
  recipientNotFound: () => new DomainError('not_found', 'recipient_not_found', 'recipient: no such profile or installation in this environment'),
  idempotencyReused: () =>
    new DomainError('conflict', 'idempotency_key_reused', 'idempotencyKey: already used with a different request'),
  /** Admitted under another access key of the environment: never that key's answer (issue 21 point 10). */
  idempotencyReusedByAnotherKey: () =>
    new DomainError('conflict', 'idempotency_key_reused', 'idempotencyKey: already used by another access key'),
  rateLimited: (retryAfterSeconds: number) =>
    new DomainError('rate_limited', 'rate_limited', 'The template’s per-minute rate limit is reached.', { 'Retry-After': String(retryAfterSeconds) }),
  /** CLI: template state changes. */
  templateExists: (key: string) => new DomainError('conflict', 'template_exists', `template ${key} already exists`),
  nothingToPublish: (key: string) => new DomainError('conflict', 'no_draft', `template ${key} has no draft to publish`),
  templateArchived: (key: string) => new DomainError('conflict', 'template_archived', `template ${key} is archived`),
  keyImmutable: (key: string) => new DomainError('invalid', 'invalid_request', `key: is immutable (template ${key})`),
  credentialsInvalid: (message: string) => new DomainError('invalid', 'invalid_credentials', message),
  credentialsNotFound: (app: string, provider: string) => new DomainError('not_found', 'credentials_not_found', `app ${app} has no ${provider} credentials`),
  sendNotFound: (id: string) => new DomainError('not_found', 'send_not_found', `send ${id} not found`),
  /** Issue 24: the version a preview or a test send names does not exist. */
  versionNotFound: (key: string, which: string | number) => new DomainError('not_found', 'version_not_found', `template ${key} has no ${typeof which === 'number' ? `version ${which}` : `${which} version`}`),
  testGroupNotFound: (ref: string) => new DomainError('not_found', 'test_group_not_found', `test group ${ref} not found`),
  testGroupExists: (name: string) => new DomainError('conflict', 'test_group_exists', `a test group named ${name} already exists in this environment`),
};
