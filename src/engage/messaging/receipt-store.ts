import type { Sql } from '../../platform/store/sql';

/**
 * PUSH_RECEIPT_RECORDED (spec 01) linked back to its delivery: the first time of each receipt
 * stays, and the state only moves forward (SENT -> DELIVERED -> OPENED; a FAILED or EXPIRED one
 * keeps its state). Only a delivery to this installation.
 */
const RECEIPT = {
  delivered: `UPDATE push_deliveries SET delivered_at = COALESCE(delivered_at, ?), updated_at = ?,
      state = CASE WHEN state IN ('PENDING', 'SENT') THEN 'DELIVERED' ELSE state END
    WHERE id = ? AND installation_id = ? AND environment_id = ?`,
  opened: `UPDATE push_deliveries SET opened_at = COALESCE(opened_at, ?), updated_at = ?,
      state = CASE WHEN state IN ('PENDING', 'SENT', 'DELIVERED') THEN 'OPENED' ELSE state END
    WHERE id = ? AND installation_id = ? AND environment_id = ?`,
} as const;

/** The receipts the devices report of their deliveries (push_deliveries is messaging's, db/owners.ts). */
export function createReceiptStore(db: Sql) {
  return {
    async recordPushReceipt(environmentId: string, installationId: string, deliveryId: string, type: 'DELIVERED' | 'OPENED', at: string): Promise<void> {
      await db.run(type === 'DELIVERED' ? RECEIPT.delivered : RECEIPT.opened, [at, at, deliveryId, installationId, environmentId]);
    },
  };
}

export type ReceiptStore = ReturnType<typeof createReceiptStore>;
