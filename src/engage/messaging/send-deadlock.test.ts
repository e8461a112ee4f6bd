import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { createPushWorld, device, send, sendBody, templateFile, type PushWorld } from '../../../test/fixtures/messaging';
import { TEST_ENGINE } from '../../../test/helpers/harness';

/**
 * A send that writes an inbox entry and is PostgreSQL's deadlock victim (40P01) runs again in a
 * later group, at most 3 times (src/platform/store/group-commit.ts; docs/decisions.md).
 * A real deadlock needs two processes' groups locking a rate row and an inbox owner in opposite
 * orders at the right moment, which no test can time; here the entry's INSERT itself fails with
 * SQLSTATE 40P01 the first N times (a trigger counting with a sequence, which a rollback does not
 * undo), so the error reaches the send path exactly as PostgreSQL raises a deadlock.
 */
describe.skipIf(TEST_ENGINE !== 'postgres')('a send that is a deadlock victim (PostgreSQL)', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
    const m = w.h.services.engage.messaging;
    const file = templateFile({
      key: 'order.inbox',
      inbox: { key: 'order.shipped', localizations: { en: { payload: { orderId: '{{orderId}}' } } } },
    });
    await m.templates.create({ environment: w.envId, file }, ACTOR);
    await m.templates.publish(w.envId, 'order.inbox', ACTOR);
    await w.h.sql.run('CREATE SEQUENCE test_deadlocks');
    await w.h.sql.run('CREATE TABLE test_deadlock_budget (n integer NOT NULL)');
    await w.h.sql.run('INSERT INTO test_deadlock_budget (n) VALUES (0)');
    await w.h.sql.run(`CREATE FUNCTION test_deadlock() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        IF nextval('test_deadlocks') <= (SELECT n FROM test_deadlock_budget) THEN
          RAISE EXCEPTION 'deadlock detected (test)' USING ERRCODE = '40P01';
        END IF;
        RETURN NEW;
      END $f$`);
    await w.h.sql.run('CREATE TRIGGER test_deadlock BEFORE INSERT ON inbox_entries FOR EACH ROW EXECUTE FUNCTION test_deadlock()');
  });
  afterAll(() => w?.close());

  /** The next `failures` entry INSERTs fail with 40P01; what the send answers, and how many INSERTs were tried. */
  async function sendFailing(failures: number, externalId: string) {
    const tried = async () => Number((await w.h.sql.get<{ n: string }>('SELECT last_value AS n FROM test_deadlocks'))!.n);
    const before = await tried();
    await w.h.sql.run('UPDATE test_deadlock_budget SET n = ?', [before + failures]);
    await device(w, { externalId });
    const res = await send(w, sendBody({ type: 'EXTERNAL_ID', value: externalId }), { template: 'order.inbox' });
    const entries = Number((await w.h.sql.get<{ n: string }>(
      `SELECT COUNT(*) AS n FROM inbox_entries e JOIN profiles p ON p.id = e.owner_id WHERE p.external_id = ?`, [externalId],
    ))!.n);
    const deliveries = Number((await w.h.sql.get<{ n: string }>(
      `SELECT COUNT(*) AS n FROM push_deliveries d JOIN installations i ON i.id = d.installation_id JOIN profiles p ON p.id = i.profile_id WHERE p.external_id = ?`, [externalId],
    ))!.n);
    return { status: res.status, body: (await res.json()) as { inboxEntryId?: string; code?: string }, entries, deliveries, tries: (await tried()) - before };
  }

  it('once, twice or three times: the send runs again and answers 202 with one entry and one delivery, its own', async () => {
    for (const [failures, user] of [[1, 'dl-once'], [2, 'dl-twice'], [3, 'dl-thrice']] as const) {
      const r = await sendFailing(failures, user);
      expect(r.tries, user).toBe(failures + 1);
      expect(r.status, user).toBe(202);
      expect(r.body.inboxEntryId).toMatch(/^[0-9a-f-]{36}$/);
      expect([r.entries, r.deliveries], user).toEqual([1, 1]);
    }
  });

  it('four times: no more attempts; nothing of the send is kept', async () => {
    const r = await sendFailing(4, 'dl-four');
    expect(r.tries).toBe(4);
    expect(r.status).not.toBe(202);
    expect([r.entries, r.deliveries]).toEqual([0, 0]);
  });
});
