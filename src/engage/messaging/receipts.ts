import type { ReceiptStore } from './receipt-store';

export type ReceiptTx = { pushReceipts: ReceiptStore };

/**
 * A device's PUSH_RECEIPT_RECORDED, in the ingest's transaction (operations/service.ts): the
 * delivery `deliveryId` to this installation was DELIVERED or OPENED at `at`. A delivery of
 * another installation, or none, is left alone.
 */
export async function recordPushReceiptIn(
  tx: ReceiptTx,
  environmentId: string,
  installationId: string,
  receipt: { deliveryId: string; type: 'DELIVERED' | 'OPENED'; at: string },
): Promise<void> {
  await tx.pushReceipts.recordPushReceipt(environmentId, installationId, receipt.deliveryId.toLowerCase(), receipt.type, receipt.at);
}
