import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, TEST_ENGINE, type Harness } from '../../../test/helpers/harness';
import { bootstrap, op, sendBatch, setupEnvironment, type Session } from '../../../test/fixtures/engage';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const overflow = (n: number): number => overflow(n + 1) + 1;
const count = async (table: string, installationId: string) =>
  (await h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE installation_id = ?`, [installationId]))!.n;

describe('ingest group commit', () => {
  it("one installation's batch throwing after it wrote rows fails only that batch, not the 29 committed with it", async () => {
    const env = await setupEnvironment(h);
    const sessions: Session[] = [];
    for (let i = 0; i < 30; i++) sessions.push(await bootstrap(h, env.app.appKey));
    const victim = sessions[11].installationId;

    if (TEST_ENGINE === 'sqlite') {
      // The stores bound to the write connection are the same object in every transaction.
      const tx = await h.services.store.tx((t) => t);
      const storeAnswer = tx.operations.insertBatchResult;
      vi.spyOn(tx.operations, 'insertBatchResult').mockImplementation((installationId, ...rest) => {
        if (installationId === victim) overflow(0); // a stack overflow once its operations are written
        return storeAnswer(installationId, ...rest);
      });
    } else {
      // PostgreSQL binds stores per transaction: the failure comes from the database instead,
      // once the victim's operations are written (a statement failing inside its savepoint).
      await h.sql.run(`CREATE FUNCTION fail_victim() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.installation_id = '${victim}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
      await h.sql.run('CREATE TRIGGER fail_victim BEFORE INSERT ON operation_batches FOR EACH ROW EXECUTE FUNCTION fail_victim()');
    }

    const responses = await Promise.all(
      sessions.map((s) =>
        sendBatch(h, s, [op('EVENT_TRACKED', { name: 'opened', properties: {} }), op('INSTALLATION_ATTRIBUTES_EDITED', { set: { plan: 'pro' } })]),
      ),
    );

    for (let i = 0; i < 30; i++) {
      const id = sessions[i].installationId;
      if (id === victim) {
        expect(responses[i].status).toBe(500);
        expect(await count('operations', id)).toBe(0);
        expect(await count('installation_attributes', id)).toBe(0);
        expect(await count('operation_batches', id)).toBe(0);
      } else {
        expect(responses[i].status).toBe(202);
        expect(await count('operations', id)).toBe(2);
        expect(await count('installation_attributes', id)).toBe(1);
        expect(await count('operation_batches', id)).toBe(1);
      }
    }
  });
});
