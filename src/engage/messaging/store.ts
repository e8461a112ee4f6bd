import type { pushDeliveries, pushSends, pushTemplates, pushTemplateVersions } from '../../db/schema';
import { valuesList, type Sql } from '../../platform/store/sql';
import { claimText, nextDueText, type ClaimTable } from '../../platform/work/claim';
import { idsNamedBy } from './send-names';
import { createTestGroupStatements } from './test-group-store';
import { createCredentialStatements } from './credential-store';
import { createRecipientStatements } from './recipient-store';

export type TemplateRow = typeof pushTemplates.$inferSelect;
export type TemplateVersionRow = typeof pushTemplateVersions.$inferSelect;
export type SendRow = typeof pushSends.$inferSelect;
export type DeliveryRow = typeof pushDeliveries.$inferSelect;
/** A delivery as the worker claims it: only what an attempt and its outcome need. */
export type ClaimedDelivery = Pick<DeliveryRow, 'id' | 'environmentId' | 'installationId' | 'appId' | 'provider' | 'token' | 'message' | 'attempts' | 'expiresMs' | 'createdMs' | 'deferredUntilMs'>;

/** What a deferred delivery's first attempt checks preferences against: its send's recipient type and its template version's list. */
export interface DeferredContext {
  deliveryId: string;
  recipientType: string;
  /** The template version's definition (JSON): its `list`, if any. */
  definition: string;
}
export type { CredentialRow } from './credential-store';
export type DeliveryState = DeliveryRow['state'];

export type { RecipientInstallation } from './recipient-store';

/** An installation of a claimed delivery as it stands now; null columns when the installation is gone. */
export interface CurrentRecipient {
  id: string | null;
  appStatus: 'ACTIVE' | 'DISABLED' | null;
  platform: 'IOS' | 'ANDROID' | null;
  privacy: string | null;
  pushSubscription: string | null;
  pushPermission: string | null;
  pushToken: string | null;
}

const TEMPLATE = `id, environment_id AS "environmentId", key, status, published_version AS "publishedVersion", latest_version AS "latestVersion",
  created_at AS "createdAt", updated_at AS "updatedAt", configuration_managed AS "configurationManaged"`;
const VERSION = `template_id AS "templateId", version, state, definition, created_at AS "createdAt", published_at AS "publishedAt"`;
const SEND = `id, environment_id AS "environmentId", template_id AS "templateId", template_version AS "templateVersion", idempotency_key AS "idempotencyKey",
  request_hash AS "requestHash", access_key_id AS "accessKeyId", recipient_type AS "recipientType", recipient_value AS "recipientValue", response,
  created_at AS "createdAt", created_ms AS "createdMs", is_test AS "isTest"`;
const DELIVERY = `id, send_id AS "sendId", environment_id AS "environmentId", template_id AS "templateId", installation_id AS "installationId",
  app_id AS "appId", provider, token, content_hash AS "contentHash", message, state, attempts, next_attempt_ms AS "nextAttemptMs",
  expires_ms AS "expiresMs", last_error AS "lastError", created_ms AS "createdMs", created_at AS "createdAt", sent_at AS "sentAt",
  delivered_at AS "deliveredAt", opened_at AS "openedAt", updated_at AS "updatedAt", deferred_until_ms AS "deferredUntilMs"`;
// The claim's RETURNING list: a claim reads every due row it takes, so the columns no attempt needs are left out.
const CLAIMED = `id, environment_id AS "environmentId", installation_id AS "installationId", app_id AS "appId", provider, token, message, attempts,
  expires_ms AS "expiresMs", created_ms AS "createdMs", deferred_until_ms AS "deferredUntilMs"`;
const DELIVERY_INSERT_COLUMNS = 22;
const SKIP_WINDOW = 1000;

/**
 * The outbox as platform/work's claim sees it: push_deliveries rows are both the domain record
 * and the work item, due (and, while claimed, leased) by `next_attempt_ms` (docs/decisions.md).
 */
const PUSH_DELIVERIES: ClaimTable = { table: 'push_deliveries', id: 'id', due: 'next_attempt_ms', attempts: 'attempts', pending: `state = 'PENDING'`, returning: CLAIMED };

const SQL = {
  insertTemplate: `INSERT INTO push_templates (id, environment_id, key, status, published_version, latest_version, created_at, updated_at)
    VALUES (?, ?, ?, 'ACTIVE', NULL, 1, ?, ?) ON CONFLICT (environment_id, key) DO NOTHING`,
  template: `SELECT ${TEMPLATE} FROM push_templates WHERE environment_id = ? AND key = ?`,
  templateById: `SELECT ${TEMPLATE} FROM push_templates WHERE id = ?`,
  templates: `SELECT ${TEMPLATE} FROM push_templates WHERE environment_id = ? ORDER BY key`,
  pageTemplates: `SELECT ${TEMPLATE} FROM push_templates WHERE environment_id = ? ORDER BY key LIMIT ? OFFSET ?`,
  insertVersion: `INSERT INTO push_template_versions (template_id, version, state, definition, created_at, published_at) VALUES (?, ?, 'DRAFT', ?, ?, NULL)`,
  version: `SELECT ${VERSION} FROM push_template_versions WHERE template_id = ? AND version = ?`,
  versions: `SELECT ${VERSION} FROM push_template_versions WHERE template_id = ? ORDER BY version`,
  replaceDraft: `UPDATE push_template_versions SET definition = ?, created_at = ? WHERE template_id = ? AND version = ? AND state = 'DRAFT'`,
  // Conditional on the latest version read: of two concurrent edits, one makes the new draft.
  bumpLatest: `UPDATE push_templates SET latest_version = ?, updated_at = ? WHERE id = ? AND latest_version = ?`,
  supersede: `UPDATE push_template_versions SET state = 'SUPERSEDED' WHERE template_id = ? AND state = 'PUBLISHED' AND version <> ?`,
  publishVersion: `UPDATE push_template_versions SET state = 'PUBLISHED', published_at = ? WHERE template_id = ? AND version = ? AND state = 'DRAFT'`,
  setPublished: `UPDATE push_templates SET published_version = ?, updated_at = ? WHERE id = ?`,
  setStatus: `UPDATE push_templates SET status = ?, updated_at = ? WHERE id = ?`,
  active: `SELECT t.id AS "templateId", t.status, t.published_version AS "version", v.definition
      FROM push_templates t LEFT JOIN push_template_versions v ON v.template_id = t.id AND v.version = t.published_version
     WHERE t.environment_id = ? AND t.key = ?`,
  // A fixed one-minute window per template: counts only while under the limit (a conditional write).
  takeRate: `INSERT INTO push_rate_windows (template_id, window_ms, count) VALUES (?, ?, 1)
    ON CONFLICT (template_id, window_ms) DO UPDATE SET count = push_rate_windows.count + 1 WHERE push_rate_windows.count < ?
    RETURNING count`,
  dropOldWindows: `DELETE FROM push_rate_windows WHERE template_id = ? AND window_ms < ?`,
  send: `SELECT ${SEND} FROM push_sends WHERE environment_id = ? AND is_test = ? AND idempotency_key = ?`,
  sendById: `SELECT ${SEND} FROM push_sends WHERE id = ?`,
  insertSend: `INSERT INTO push_sends (id, environment_id, template_id, template_version, idempotency_key, request_hash, access_key_id,
      recipient_type, recipient_value, response, created_at, created_ms, is_test)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (environment_id, is_test, idempotency_key) DO NOTHING`,
  // Counts leave test sends out (issue 24 point 4); testSendCount counts them alone.
  sendCount: `SELECT COUNT(*) AS n FROM push_sends WHERE template_id = ? AND is_test = 0`,
  testSendCount: `SELECT COUNT(*) AS n FROM push_sends WHERE template_id = ? AND is_test = 1`,
  insertSendRecipients: (n: number) =>
    `INSERT INTO push_send_recipients (recipient_id, send_id, environment_id) VALUES ${valuesList(n, 3)} ON CONFLICT (recipient_id, send_id) DO NOTHING`,
  sendsNaming: (n: number) => `SELECT ${SEND} FROM push_sends WHERE id IN (SELECT send_id FROM push_send_recipients
      WHERE environment_id = ? AND recipient_id IN (${new Array<string>(n).fill('?').join(', ')})) AND environment_id = ?`,
  redactSend: `UPDATE push_sends SET recipient_value = ?, response = ? WHERE id = ? AND environment_id = ?`,
  duplicate: `SELECT 1 AS x FROM push_deliveries WHERE installation_id = ? AND template_id = ? AND created_ms > ? AND content_hash = ? LIMIT 1`,
  insertDeliveries: (n: number) =>
    `INSERT INTO push_deliveries (id, send_id, environment_id, template_id, installation_id, app_id, provider, token, content_hash, message, state,
      attempts, next_attempt_ms, expires_ms, last_error, created_ms, created_at, sent_at, delivered_at, opened_at, updated_at, deferred_until_ms)
      VALUES ${valuesList(n, DELIVERY_INSERT_COLUMNS)}`,
  // Skipping apps whose deliveries already fill their share of the worker (delivery.ts): among the
  // SKIP_WINDOW earliest due rows only, so a backlog of the skipped apps is never scanned whole.
  skipping: (skipApps: number) => `AND next_attempt_ms <= COALESCE((SELECT next_attempt_ms FROM push_deliveries WHERE state = 'PENDING' AND next_attempt_ms <= ?
           ORDER BY next_attempt_ms LIMIT 1 OFFSET ${SKIP_WINDOW - 1}), ?)
         AND app_id NOT IN (${new Array<string>(skipApps).fill('?').join(', ')})`,
  sent: (n: number) =>
    `UPDATE push_deliveries SET state = 'SENT', sent_at = ?, last_error = NULL, updated_at = ? WHERE id IN (${new Array<string>(n).fill('?').join(', ')}) AND state = 'PENDING'`,
  retry: `UPDATE push_deliveries SET next_attempt_ms = ?, last_error = ?, updated_at = ? WHERE id = ? AND state = 'PENDING'`,
  fail: `UPDATE push_deliveries SET state = ?, last_error = ?, updated_at = ? WHERE id = ? AND state = 'PENDING'`,
  // Before the attempt (issue 21 point 15): the installation as it stands now, through its delivery
  // (scoped by the delivery's environment). No row: the delivery is gone (erased meanwhile).
  currentRecipients: (n: number) => `SELECT d.id AS "deliveryId", i.id, a.status AS "appStatus", i.platform, i.privacy,
      i.push_subscription AS "pushSubscription", i.push_permission AS "pushPermission", i.push_token AS "pushToken"
    FROM push_deliveries d LEFT JOIN installations i ON i.environment_id = d.environment_id AND i.id = d.installation_id
      LEFT JOIN apps a ON a.id = i.app_id
    WHERE d.id IN (${new Array<string>(n).fill('?').join(', ')})`,
  // The claim counted an attempt that is not made: it is given back.
  // A claim given back unattempted: due again at once, its attempt not counted.
  release: `UPDATE push_deliveries SET next_attempt_ms = ?, attempts = attempts - 1, updated_at = ? WHERE id = ? AND state = 'PENDING'`,
  withdraw: `UPDATE push_deliveries SET state = 'FAILED', last_error = ?, attempts = attempts - 1, updated_at = ? WHERE id = ? AND state = 'PENDING'`,
  retarget: `UPDATE push_deliveries SET token = ?, updated_at = ? WHERE id = ? AND state = 'PENDING'`,
  // Deferred again (the quiet hours moved while it waited): due at their new end, the claim's attempt given back.
  redefer: `UPDATE push_deliveries SET next_attempt_ms = ?, deferred_until_ms = ?, attempts = attempts - 1, updated_at = ? WHERE id = ? AND state = 'PENDING'`,
  deferredContext: (n: number) => `SELECT d.id AS "deliveryId", s.recipient_type AS "recipientType", v.definition
    FROM push_deliveries d JOIN push_sends s ON s.id = d.send_id
      JOIN push_template_versions v ON v.template_id = s.template_id AND v.version = s.template_version
    WHERE d.id IN (${new Array<string>(n).fill('?').join(', ')})`,
  nextDue: nextDueText(PUSH_DELIVERIES),
  delivery: `SELECT ${DELIVERY} FROM push_deliveries WHERE id = ?`,
  bySend: `SELECT ${DELIVERY} FROM push_deliveries WHERE send_id = ? ORDER BY created_ms, id`,
  byInstallation: `SELECT ${DELIVERY} FROM push_deliveries WHERE installation_id = ? ORDER BY created_ms DESC, id LIMIT ?`,
  // `engage deliveries list` (issue 23 point 10): a page of a send's deliveries (oldest first) or an
  // installation's (newest first), optionally in one state; `? IS NULL` keeps one text per scope.
  pageBySend: `SELECT ${DELIVERY} FROM push_deliveries WHERE send_id = ? AND (CAST(? AS TEXT) IS NULL OR state = ?) ORDER BY created_ms, id LIMIT ? OFFSET ?`,
  pageByInstallation: `SELECT ${DELIVERY} FROM push_deliveries WHERE installation_id = ? AND (CAST(? AS TEXT) IS NULL OR state = ?) ORDER BY created_ms DESC, id LIMIT ? OFFSET ?`,
  countsByState: `SELECT d.state, COUNT(*) AS n FROM push_deliveries d JOIN push_sends s ON s.id = d.send_id
    WHERE d.template_id = ? AND s.is_test = 0 GROUP BY d.state`,
  // Only PENDING rows (the due index): cheap enough for every scrape.
  pendingByProvider: `SELECT provider, COUNT(*) AS n FROM push_deliveries WHERE state = 'PENDING' GROUP BY provider`,
} as const;

/** Templates, provider credentials (credential-store.ts), sends and the delivery outbox (migration 0008). */
export function createMessagingStore(db: Sql) {
  const claim = claimText(PUSH_DELIVERIES, db.dialect);
  return {
    ...createTestGroupStatements(db),
    // The apps' provider credentials (credential-store.ts).
    ...createCredentialStatements(db),
    // A send's recipients, locked (recipient-store.ts).
    ...createRecipientStatements(db),
    async insertTemplate(id: string, environmentId: string, key: string, at: string): Promise<boolean> {
      return (await db.run(SQL.insertTemplate, [id, environmentId, key, at, at])) === 1;
    },
    findTemplate(environmentId: string, key: string): Promise<TemplateRow | undefined> {
      return db.get<TemplateRow>(SQL.template, [environmentId, key]);
    },
    findTemplateById(id: string): Promise<TemplateRow | undefined> {
      return db.get<TemplateRow>(SQL.templateById, [id]);
    },
    listTemplates(environmentId: string): Promise<TemplateRow[]> {
      return db.all<TemplateRow>(SQL.templates, [environmentId]);
    },
    pageTemplates(environmentId: string, limit: number, offset: number): Promise<TemplateRow[]> {
      return db.all<TemplateRow>(SQL.pageTemplates, [environmentId, limit, offset]);
    },
    async insertVersion(templateId: string, version: number, definition: string, at: string): Promise<void> {
      await db.run(SQL.insertVersion, [templateId, version, definition, at]);
    },
    version(templateId: string, version: number): Promise<TemplateVersionRow | undefined> {
      return db.get<TemplateVersionRow>(SQL.version, [templateId, version]);
    },
    versions(templateId: string): Promise<TemplateVersionRow[]> {
      return db.all<TemplateVersionRow>(SQL.versions, [templateId]);
    },
    async replaceDraft(templateId: string, version: number, definition: string, at: string): Promise<boolean> {
      return (await db.run(SQL.replaceDraft, [definition, at, templateId, version])) === 1;
    },
    async bumpLatest(templateId: string, from: number, at: string): Promise<boolean> {
      return (await db.run(SQL.bumpLatest, [from + 1, at, templateId, from])) === 1;
    },
    /** Publishes a draft: the previous published version is superseded. False when `version` is not a draft (any more). */
    async publish(templateId: string, version: number, at: string): Promise<boolean> {
      if ((await db.run(SQL.publishVersion, [at, templateId, version])) !== 1) return false;
      await db.run(SQL.supersede, [templateId, version]);
      await db.run(SQL.setPublished, [version, at, templateId]);
      return true;
    },
    async setStatus(templateId: string, status: TemplateRow['status'], at: string): Promise<void> {
      await db.run(SQL.setStatus, [status, at, templateId]);
    },
    /** The template a send names, with its published definition (null when none is published). */
    activeTemplate(environmentId: string, key: string) {
      return db.get<{ templateId: string; status: TemplateRow['status']; version: number | null; definition: string | null }>(SQL.active, [environmentId, key]);
    },
    /** Counts one send in the template's current minute; false when the limit is reached. */
    async takeRate(templateId: string, windowMs: number, limit: number): Promise<boolean> {
      const row = await db.get<{ count: number }>(SQL.takeRate, [templateId, windowMs, limit]);
      if (row?.count === 1) await db.run(SQL.dropOldWindows, [templateId, windowMs]);
      return row !== undefined;
    },
    /** The send holding `idempotencyKey` among real sends, or among test sends (`test`: their own keys). */
    findSend(environmentId: string, idempotencyKey: string, test = false): Promise<SendRow | undefined> {
      return db.get<SendRow>(SQL.send, [environmentId, test ? 1 : 0, idempotencyKey]);
    },
    findSendById(id: string): Promise<SendRow | undefined> {
      return db.get<SendRow>(SQL.sendById, [id]);
    },
    /**
     * Records an admitted send, and the installations and profiles it names (push_send_recipients,
     * so erasure finds it); false when its idempotencyKey was taken meanwhile (another process).
     */
    async insertSend(r: SendRow): Promise<boolean> {
      const inserted =
        (await db.run(SQL.insertSend, [
          r.id, r.environmentId, r.templateId, r.templateVersion, r.idempotencyKey, r.requestHash, r.accessKeyId,
          r.recipientType, r.recipientValue, r.response, r.createdAt, r.createdMs, r.isTest ?? 0,
        ])) === 1;
      if (!inserted) return false;
      const ids = idsNamedBy(r);
      for (let i = 0; i < ids.length; i += 300) {
        const part = ids.slice(i, i + 300);
        await db.run(SQL.insertSendRecipients(part.length), part.flatMap((id) => [id, r.id, r.environmentId]));
      }
      return true;
    },
    /** The sends of the environment that name any of these installations or profiles. */
    async sendsNaming(environmentId: string, ids: readonly string[]): Promise<SendRow[]> {
      if (ids.length === 0) return [];
      return db.all<SendRow>(SQL.sendsNaming(ids.length), [environmentId, ...ids, environmentId]);
    },
    async redactSend(environmentId: string, id: string, recipientValue: string, response: string): Promise<void> {
      await db.run(SQL.redactSend, [recipientValue, response, id, environmentId]);
    },
    /** The template's sends, test sends left out. */
    async sendCount(templateId: string): Promise<number> {
      return Number((await db.get<{ n: number }>(SQL.sendCount, [templateId]))?.n ?? 0);
    },
    async testSendCount(templateId: string): Promise<number> {
      return Number((await db.get<{ n: number }>(SQL.testSendCount, [templateId]))?.n ?? 0);
    },
    async recentDuplicate(installationId: string, templateId: string, sinceMs: number, contentHash: string): Promise<boolean> {
      return (await db.get(SQL.duplicate, [installationId, templateId, sinceMs, contentHash])) !== undefined;
    },
    async insertDeliveries(rows: DeliveryRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += 200) {
        const chunk = rows.slice(i, i + 200);
        const values: unknown[] = [];
        for (const r of chunk)
          values.push(
            r.id, r.sendId, r.environmentId, r.templateId, r.installationId, r.appId, r.provider, r.token, r.contentHash, r.message, r.state,
            r.attempts, r.nextAttemptMs, r.expiresMs, r.lastError, r.createdMs, r.createdAt, r.sentAt, r.deliveredAt, r.openedAt, r.updatedAt,
            r.deferredUntilMs,
          );
        await db.run(SQL.insertDeliveries(chunk.length), values);
      }
    },
    /**
     * Claims up to `limit` due deliveries: their next attempt moves to `claimUntil`, so a process
     * that dies mid-attempt leaves them due again then (at-least-once), and another worker skips
     * them meanwhile (PostgreSQL: SKIP LOCKED). Counts the attempt.
     */
    claimDue(nowMs: number, claimUntil: number, limit: number, skipApps: readonly string[] = []): Promise<ClaimedDelivery[]> {
      if (skipApps.length === 0) return db.all<ClaimedDelivery>(claim, [claimUntil, nowMs, limit]);
      // Padded to a power of two (repeating the last id) so a handful of statement texts get prepared.
      const skip = [...skipApps];
      const size = 2 ** Math.ceil(Math.log2(skip.length));
      while (skip.length < size) skip.push(skip[skip.length - 1]);
      return db.all<ClaimedDelivery>(claimText(PUSH_DELIVERIES, db.dialect, SQL.skipping(size)), [claimUntil, nowMs, nowMs, nowMs, ...skip, limit]);
    },
    /** Gives a claimed delivery back unattempted (its claim would lapse before its turn): due at `dueMs`, the attempt not counted. */
    async release(id: string, dueMs: number, at: string): Promise<void> {
      await db.run(SQL.release, [dueMs, at, id]);
    },
    /** Marks deliveries SENT (those still PENDING), a few hundred per statement. */
    async markSent(ids: readonly string[], at: string): Promise<void> {
      if (ids.length === 0) return;
      for (let i = 0; i < ids.length; i += 500) {
        const part = ids.slice(i, i + 500);
        // Padded to a power of two (repeating the last id) so a handful of statement texts get prepared, not one per size.
        const size = Math.min(512, 2 ** Math.ceil(Math.log2(part.length)));
        while (part.length < size) part.push(part[part.length - 1]);
        await db.run(SQL.sent(size), [at, at, ...part]);
      }
    },
    async markRetry(id: string, nextAttemptMs: number, error: string, at: string): Promise<void> {
      await db.run(SQL.retry, [nextAttemptMs, error, at, id]);
    },
    async markFinal(id: string, state: 'FAILED' | 'EXPIRED', error: string, at: string): Promise<void> {
      await db.run(SQL.fail, [state, error, at, id]);
    },
    /**
     * The installations of these deliveries as they stand now, by delivery id (a claimed batch,
     * padded to a power of two as markSent does); a delivery missing from the map is gone.
     */
    async currentRecipients(deliveryIds: readonly string[]): Promise<Map<string, CurrentRecipient>> {
      const out = new Map<string, CurrentRecipient>();
      for (let i = 0; i < deliveryIds.length; i += 500) {
        const part = deliveryIds.slice(i, i + 500);
        const size = Math.min(512, 2 ** Math.ceil(Math.log2(part.length)));
        while (part.length < size) part.push(part[part.length - 1]);
        for (const r of await db.all<CurrentRecipient & { deliveryId: string }>(SQL.currentRecipients(size), part)) out.set(r.deliveryId, r);
      }
      return out;
    },
    /** Ends a claimed delivery without an attempt: FAILED with the reason, the claim's attempt given back. */
    async withdraw(id: string, reason: string, at: string): Promise<void> {
      await db.run(SQL.withdraw, [reason, at, id]);
    },
    /** Deferred again to `dueMs` (quiet hours that moved while it waited), the claim's attempt given back. */
    async redefer(id: string, dueMs: number, at: string): Promise<void> {
      await db.run(SQL.redefer, [dueMs, dueMs, at, id]);
    },
    /** The send's recipient type and the template version's definition of each of these (deferred) deliveries. */
    async deferredContext(deliveryIds: readonly string[]): Promise<Map<string, DeferredContext>> {
      const out = new Map<string, DeferredContext>();
      for (let i = 0; i < deliveryIds.length; i += 500) {
        const part = deliveryIds.slice(i, i + 500);
        for (const r of await db.all<DeferredContext>(SQL.deferredContext(part.length), part)) out.set(r.deliveryId, r);
      }
      return out;
    },
    /** A claimed delivery goes to the installation's current token (registered again since admission). */
    async retarget(id: string, token: string, at: string): Promise<void> {
      await db.run(SQL.retarget, [token, at, id]);
    },
    async nextDue(): Promise<number | undefined> {
      const r = await db.get<{ dueMs: number | null }>(SQL.nextDue);
      return r?.dueMs === null || r?.dueMs === undefined ? undefined : Number(r.dueMs);
    },
    findDelivery(id: string): Promise<DeliveryRow | undefined> {
      return db.get<DeliveryRow>(SQL.delivery, [id]);
    },
    deliveriesOfSend(sendId: string): Promise<DeliveryRow[]> {
      return db.all<DeliveryRow>(SQL.bySend, [sendId]);
    },
    deliveriesOfInstallation(installationId: string, limit = 100): Promise<DeliveryRow[]> {
      return db.all<DeliveryRow>(SQL.byInstallation, [installationId, limit]);
    },
    /** A page (LIMIT/OFFSET) of a send's or an installation's deliveries, in `state` when given. */
    pageDeliveries(of: { sendId: string } | { installationId: string }, state: DeliveryState | undefined, limit: number, offset: number): Promise<DeliveryRow[]> {
      const [sql, id] = 'sendId' in of ? [SQL.pageBySend, of.sendId] : [SQL.pageByInstallation, of.installationId];
      return db.all<DeliveryRow>(sql, [id, state ?? null, state ?? null, limit, offset]);
    },
    /** The deliveries of the template's sends by state, those of test sends left out. */
    async countsByState(templateId: string): Promise<Record<string, number>> {
      const rows = await db.all<{ state: string; n: number }>(SQL.countsByState, [templateId]);
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    },
    /** Deliveries waiting for a first attempt or a retry, across processes, by provider. */
    async pendingByProvider(): Promise<{ provider: string; n: number }[]> {
      return (await db.all<{ provider: string; n: number }>(SQL.pendingByProvider)).map((r) => ({ ...r, n: Number(r.n) }));
    },
  };
}

export type MessagingStore = ReturnType<typeof createMessagingStore>;
