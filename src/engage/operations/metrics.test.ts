import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, PUBLIC_URL, type Harness } from '../../../test/helpers/harness';
import { bootstrap, op, sendBatch, setupEnvironment } from '../../../test/fixtures/engage';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

describe('ingest in /metrics', () => {
  it('counts batches stored, replayed and in conflict, and operations by result status', async () => {
    const env = await setupEnvironment(h);
    const s = await bootstrap(h, env.app.appKey);
    const batchId = randomUUID();
    const ops = [op('EVENT_TRACKED', { name: 'opened', properties: {} }), op('NO_SUCH_TYPE', {})];
    expect((await sendBatch(h, s, ops, batchId)).status).toBe(202);
    expect((await sendBatch(h, s, ops, batchId)).status).toBe(200);
    expect((await sendBatch(h, s, [op('EVENT_TRACKED', { name: 'other', properties: {} })], batchId)).status).toBe(409);
    // From a loopback peer: the main port serves /metrics to no one else by default (issue 21).
    const text = await (await h.app.request(`${PUBLIC_URL}/metrics`, {}, { incoming: { socket: { remoteAddress: '127.0.0.1' } } })).text();
    expect(text).toContain('engage_ingest_batches_total{outcome="stored"} 1');
    expect(text).toContain('engage_ingest_batches_total{outcome="replayed"} 1');
    expect(text).toContain('engage_ingest_batches_total{outcome="conflict"} 1');
    expect(text).toContain('engage_ingest_operations_total{status="ACCEPTED"} 1');
    expect(text).toContain('engage_ingest_operations_total{status="REJECTED"} 1');
  });
});
