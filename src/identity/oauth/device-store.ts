import type { deviceAuthorizations } from '../../db/schema';
import type { Sql } from '../../platform/store/sql';

/** A device_authorizations row (RFC 8628, issue 23). */
export type DeviceRow = typeof deviceAuthorizations.$inferSelect;

const COLUMNS = `device_code_digest AS "deviceCodeDigest", tenant_id AS "tenantId", client_id AS "clientId", user_code_digest AS "userCodeDigest",
  scope, resource, status, poll_interval AS "pollInterval", last_polled_at AS "lastPolledAt", browser_state_digest AS "browserStateDigest", code_digest AS "codeDigest",
  user_id AS "userId", created_at AS "createdAt", expires_at AS "expiresAt"`;

const SQL = {
  insert: `INSERT INTO device_authorizations (device_code_digest, tenant_id, client_id, user_code_digest, scope, resource, poll_interval, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  find: `SELECT ${COLUMNS} FROM device_authorizations WHERE tenant_id = ? AND device_code_digest = ?`,
  findPending: `SELECT ${COLUMNS} FROM device_authorizations WHERE tenant_id = ? AND user_code_digest = ? AND status = 'PENDING' AND expires_at > ?`,
  findByState: `SELECT ${COLUMNS} FROM device_authorizations WHERE tenant_id = ? AND browser_state_digest = ? AND status = 'PENDING' AND expires_at > ?`,
  bind: `UPDATE device_authorizations SET browser_state_digest = ? WHERE tenant_id = ? AND device_code_digest = ? AND status = 'PENDING' AND expires_at > ?`,
  approve: `UPDATE device_authorizations SET status = 'APPROVED', code_digest = ?, user_id = ?
    WHERE tenant_id = ? AND device_code_digest = ? AND status = 'PENDING' AND expires_at > ?`,
  deny: `UPDATE device_authorizations SET status = 'DENIED' WHERE tenant_id = ? AND device_code_digest = ? AND status = 'PENDING'`,
  // A poll on time moves last_polled_at; one too soon (two in parallel included: the second
  // finds the first's time) moves nothing here, and then slows the device down, up to a cap.
  onTime: `UPDATE device_authorizations SET last_polled_at = ? WHERE tenant_id = ? AND device_code_digest = ?
    AND (last_polled_at IS NULL OR last_polled_at + poll_interval <= ?)`,
  slowDown: `UPDATE device_authorizations SET last_polled_at = ?, poll_interval = CASE WHEN poll_interval + ? > ? THEN ? ELSE poll_interval + ? END
    WHERE tenant_id = ? AND device_code_digest = ? RETURNING poll_interval AS "pollInterval"`,
  consume: `UPDATE device_authorizations SET status = 'CONSUMED' WHERE tenant_id = ? AND device_code_digest = ? AND status = 'APPROVED'`,
  purge: `DELETE FROM device_authorizations WHERE device_code_digest IN (SELECT device_code_digest FROM device_authorizations WHERE expires_at < ? LIMIT ?)`,
} as const;

/** Part of the OAuth store (store.ts): every statement is tenant-scoped; writes are conditional on the status they move from. */
export function createDeviceStore(db: Sql) {
  return {
    async insertDevice(r: Pick<DeviceRow, 'deviceCodeDigest' | 'tenantId' | 'clientId' | 'userCodeDigest' | 'scope' | 'resource' | 'pollInterval' | 'createdAt' | 'expiresAt'>): Promise<void> {
      await db.run(SQL.insert, [r.deviceCodeDigest, r.tenantId, r.clientId, r.userCodeDigest, r.scope, r.resource, r.pollInterval, r.createdAt, r.expiresAt]);
    },
    findDevice(tenantId: string, deviceCodeDigest: string): Promise<DeviceRow | undefined> {
      return db.get<DeviceRow>(SQL.find, [tenantId, deviceCodeDigest]);
    },
    /** A PENDING, unexpired request by its user code. */
    findPendingDevice(tenantId: string, userCodeDigest: string, now: number): Promise<DeviceRow | undefined> {
      return db.get<DeviceRow>(SQL.findPending, [tenantId, userCodeDigest, now]);
    },
    findDeviceByBrowserState(tenantId: string, stateDigest: string, now: number): Promise<DeviceRow | undefined> {
      return db.get<DeviceRow>(SQL.findByState, [tenantId, stateDigest, now]);
    },
    async bindDeviceBrowser(tenantId: string, deviceCodeDigest: string, stateDigest: string, now: number): Promise<boolean> {
      return (await db.run(SQL.bind, [stateDigest, tenantId, deviceCodeDigest, now])) === 1;
    },
    async approveDevice(tenantId: string, deviceCodeDigest: string, codeDigest: string, userId: string, now: number): Promise<boolean> {
      return (await db.run(SQL.approve, [codeDigest, userId, tenantId, deviceCodeDigest, now])) === 1;
    },
    async denyDevice(tenantId: string, deviceCodeDigest: string): Promise<boolean> {
      return (await db.run(SQL.deny, [tenantId, deviceCodeDigest])) === 1;
    },
    /**
     * Records a poll at `now` when it kept the interval (true); otherwise the interval grows by
     * `step` seconds, to `max` at most (RFC 8628 §3.5 slow_down), and the new interval is answered.
     */
    async recordDevicePoll(tenantId: string, deviceCodeDigest: string, now: number, step: number, max: number): Promise<true | number> {
      if ((await db.run(SQL.onTime, [now, tenantId, deviceCodeDigest, now])) === 1) return true;
      const r = await db.get<{ pollInterval: number }>(SQL.slowDown, [now, step, max, max, step, tenantId, deviceCodeDigest]);
      return Number(r?.pollInterval ?? max);
    },
    /** APPROVED → CONSUMED, once: only the request that moves it is answered with tokens. */
    async consumeDevice(tenantId: string, deviceCodeDigest: string): Promise<boolean> {
      return (await db.run(SQL.consume, [tenantId, deviceCodeDigest])) === 1;
    },
    purgeDevices(before: number, limit: number): Promise<number> {
      return db.run(SQL.purge, [before, limit]);
    },
  };
}
