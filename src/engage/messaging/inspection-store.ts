import type { Sql } from '../../platform/store/sql';

/**
 * Read models of the send ledger for the administration API (issue 24 point 5): the messaging
 * context's tables read, never written (the writer is messaging/store.ts). Every query takes
 * the environment.
 */
export interface SendListRow {
  id: string;
  templateId: string;
  templateKey: string | null;
  templateVersion: number;
  recipientType: string;
  recipientValue: string;
  accessKeyId: string;
  isTest: number;
  createdAt: string;
}

const SEND_LINE = `s.id, s.template_id AS "templateId", t.key AS "templateKey", s.template_version AS "templateVersion", s.recipient_type AS "recipientType",
  s.recipient_value AS "recipientValue", s.access_key_id AS "accessKeyId", s.is_test AS "isTest", s.created_at AS "createdAt"`;

const SQL = {
  // Filters: a NULL parameter leaves its filter out. state: sends with at least one delivery in
  // that state (push_deliveries_send); installation: sends with a delivery to it. Newest first.
  page: `SELECT ${SEND_LINE} FROM push_sends s LEFT JOIN push_templates t ON t.id = s.template_id AND t.environment_id = s.environment_id
     WHERE s.environment_id = ?
       AND (CAST(? AS TEXT) IS NULL OR t.key = ?)
       AND (CAST(? AS INTEGER) IS NULL OR s.is_test = ?)
       AND (CAST(? AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM push_deliveries d WHERE d.send_id = s.id AND d.state = ?))
       AND (CAST(? AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM push_deliveries d WHERE d.send_id = s.id AND d.installation_id = ?))
     ORDER BY s.created_ms DESC, s.id DESC LIMIT ? OFFSET ?`,
  one: `SELECT ${SEND_LINE} FROM push_sends s LEFT JOIN push_templates t ON t.id = s.template_id AND t.environment_id = s.environment_id
     WHERE s.environment_id = ? AND s.id = ?`,
  states: 'SELECT state, COUNT(*) AS n FROM push_deliveries WHERE send_id = ? AND environment_id = ? GROUP BY state',
  // Sends addressed to an external id (privacy erasure of its profile; send-erasure.ts).
  toExternalId: `SELECT id, recipient_type AS "recipientType", recipient_value AS "recipientValue", response FROM push_sends
     WHERE environment_id = ? AND recipient_type = 'EXTERNAL_ID' AND recipient_value = ?`,
} as const;

export function createMessagingInspectionStore(db: Sql) {
  return {
    pageSends(environmentId: string, f: { template?: string; test?: boolean; state?: string; installation?: string }, limit: number, offset: number): Promise<SendListRow[]> {
      const test = f.test === undefined ? null : f.test ? 1 : 0;
      const inst = f.installation ?? null;
      return db.all<SendListRow>(SQL.page, [environmentId, f.template ?? null, f.template ?? null, test, test, f.state ?? null, f.state ?? null, inst, inst, limit, offset]);
    },
    sendIn(environmentId: string, id: string): Promise<SendListRow | undefined> {
      return db.get<SendListRow>(SQL.one, [environmentId, id]);
    },
    /** The sends of the environment addressed to `externalId` (recipient EXTERNAL_ID). */
    sendsToExternalId(environmentId: string, externalId: string): Promise<{ id: string; recipientType: string; recipientValue: string; response: string }[]> {
      return db.all(SQL.toExternalId, [environmentId, externalId]);
    },
    async deliveryStates(environmentId: string, sendId: string): Promise<Record<string, number>> {
      const rows = await db.all<{ state: string; n: number }>(SQL.states, [sendId, environmentId]);
      return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
    },
  };
}

export type MessagingInspectionStore = ReturnType<typeof createMessagingInspectionStore>;
