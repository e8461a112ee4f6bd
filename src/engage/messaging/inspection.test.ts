import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushWorld, device, send, sendBody, type PushWorld } from '../../../test/fixtures/messaging';

/** Issue 23 point 10: `engage deliveries list` pages (--page, --size) and filters by --state. */
describe('listDeliveries (engage deliveries list)', () => {
  let w: PushWorld;
  let installationId: string;
  const sendIds: string[] = [];
  const list = (by: Parameters<PushWorld['h']['services']['engage']['messaging']['inspection']['listDeliveries']>[0], page = 0, size = 50) =>
    w.h.services.engage.messaging.inspection.listDeliveries(by, { page, size });

  beforeAll(async () => {
    w = await createPushWorld();
    installationId = (await device(w)).installationId;
    for (let i = 0; i < 3; i++) {
      w.h.clock.advance(1000);
      const res = await send(w, sendBody({ type: 'INSTALLATION_ID', value: installationId }));
      expect(res.status).toBe(202);
      sendIds.push(((await res.json()) as { requestId: string }).requestId);
    }
    // The middle send's delivery failed for good; the others wait (no worker has run).
    await w.h.sql.run(`UPDATE push_deliveries SET state = 'FAILED', last_error = 'Unregistered' WHERE send_id = ?`, [sendIds[1]]);
  }, 60_000);
  afterAll(() => w?.close());

  it("an installation's deliveries, newest first, a page at a time", async () => {
    const first = await list({ installation: installationId }, 0, 2);
    expect(first).toMatchObject({ page: 0, size: 2, hasMore: true });
    expect(first.items.map((d) => d.sendId)).toEqual([sendIds[2], sendIds[1]]);
    const second = await list({ installation: installationId }, 1, 2);
    expect(second).toMatchObject({ page: 1, size: 2, hasMore: false });
    expect(second.items.map((d) => d.sendId)).toEqual([sendIds[0]]);
  });

  it('--state keeps only the deliveries in that state, of an installation or of a send', async () => {
    expect((await list({ installation: installationId, state: 'FAILED' })).items.map((d) => [d.sendId, d.state, d.lastError])).toEqual([[sendIds[1], 'FAILED', 'Unregistered']]);
    expect((await list({ installation: installationId, state: 'PENDING' })).items.map((d) => d.sendId)).toEqual([sendIds[2], sendIds[0]]);
    expect((await list({ send: sendIds[0], state: 'PENDING' })).items).toHaveLength(1);
    expect((await list({ send: sendIds[0], state: 'FAILED' })).items).toEqual([]);
    expect((await list({ installation: installationId, state: 'OPENED' })).items).toEqual([]);
  });

  it('an unknown state, or no scope, is invalid_request', async () => {
    await expect(list({ installation: installationId, state: 'LOST' })).rejects.toMatchObject({ code: 'invalid_request', message: 'state: must be one of PENDING, SENT, DELIVERED, OPENED, FAILED, EXPIRED' });
    await expect(list({ state: 'FAILED' })).rejects.toMatchObject({ code: 'invalid_request', message: 'give --send or --installation' });
  });
});
