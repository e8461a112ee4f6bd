import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTOR } from '../../../test/fixtures/actor';
import { createPushWorld, device, send, sendBody, templateFile, type PushWorld } from '../../../test/fixtures/messaging';
import { TEST_ENGINE } from '../../../test/helpers/harness';
import { lockWaits } from '../../../test/helpers/lock-waits';

/**
 * An erasure racing a send leaves nothing naming the erased installation or profile (issue 27/24
 * privacy; docs/decisions.md "Sends and erasures: one lock order"). On PostgreSQL (READ COMMITTED)
 * an erasure deletes by owner id with statements that do not see rows of a send committing after
 * them; the send locks its profile and installations (FOR KEY SHARE), the erasure the profiles it
 * erases and then the installation (FOR UPDATE), so one of them commits wholly first.
 *
 * Two real connections, interleaved by a third that holds a lock one of them needs next:
 * - send first: the third holds the template's rate-window row, which the send takes right after
 *   resolving its recipients; the erasure is started while the send waits there;
 * - erasure first: the third holds an uncommitted revoked_installations row with the installation's
 *   revocation digest, which the erasure inserts after deleting the installation's rows; the send
 *   is started while the erasure waits there.
 * Each side is observed waiting on a lock (pg_stat_activity) or finished before the third lets go.
 * Without the locks the send commits between the erasure's deletes and its commit (or after it)
 * and its delivery and inbox entry survive. SQLite has one writer: nothing to interleave.
 */
describe.skipIf(TEST_ENGINE !== 'postgres')('an erasure racing a send (PostgreSQL, two connections)', () => {
  let w: PushWorld;
  const environmentId = () => w.envId;
  beforeAll(async () => {
    w = await createPushWorld();
    const m = w.h.services.engage.messaging;
    const file = templateFile({ key: 'order.inbox', inbox: { key: 'order.shipped', localizations: { en: { payload: { orderId: '{{orderId}}' } } } } });
    await m.templates.create({ environment: w.envId, file }, ACTOR);
    await m.templates.publish(w.envId, 'order.inbox', ACTOR);
    // The template's rate window of this (fixed) minute exists: the third connection can hold it.
    const warm = await device(w);
    expect((await send(w, sendBody({ type: 'INSTALLATION_ID', value: warm.installationId }), { template: 'order.inbox' })).status).toBe(202);
  }, 60_000);
  afterAll(() => w?.close());

  /** A third connection holding what `statement` locks until `release()` (rolled back). */
  async function hold(statement: string, params: unknown[]) {
    const c = new pg.Client({ connectionString: w.h.config.databaseUrl });
    await c.connect();
    await c.query('BEGIN');
    await c.query(statement, params);
    return {
      async release() {
        await c.query('ROLLBACK');
        await c.end();
      },
    };
  }

  const settledOrWaiting = (p: Promise<unknown>, n: number) => lockWaits(w.h.sql).settledOrWaiting(p, n);

  /** Every table but the audit log (which names an erased profile's id by design) holding one of `ids`. */
  async function naming(ids: readonly string[]): Promise<string[]> {
    const tables = await w.h.sql.all<{ t: string }>(
      `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'audit_events'`,
    );
    const found: string[] = [];
    for (const { t } of tables) {
      const rows = JSON.stringify(await w.h.sql.all(`SELECT * FROM "${t}"`));
      for (const id of ids) if (rows.includes(id)) found.push(`${t}: ${id}`);
    }
    return found;
  }

  const profileOf = async (installationId: string) => (await w.h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [installationId]))!.p;
  const digestOf = async (installationId: string) => (await w.h.sql.get<{ d: string }>('SELECT revocation_digest AS d FROM installations WHERE id = ?', [installationId]))!.d;
  const anonymousOf = async (installationId: string) =>
    (await w.h.sql.all<{ p: string }>(
      `SELECT g.profile_id AS p FROM installation_generations g JOIN profiles p ON p.id = g.profile_id WHERE g.installation_id = ? AND p.external_id IS NULL`, [installationId],
    )).map((r) => r.p);

  interface Target {
    recipient: { type: string; value: string };
    erase: () => Promise<unknown>;
    /** The installation whose revocation the erasure records (where it is held), and every id that must be gone. */
    installationId: string;
    ids: string[];
  }
  const cases: { name: string; target: () => Promise<Target> }[] = [
    {
      name: 'PROFILE (an anonymous one), installation erasure',
      target: async () => {
        const d = await device(w);
        const profile = await profileOf(d.installationId);
        return {
          recipient: { type: 'PROFILE', value: profile }, installationId: d.installationId, ids: [d.installationId, profile],
          erase: () => w.h.services.engage.privacy.eraseInstallation(environmentId(), d.installationId, ACTOR),
        };
      },
    },
    {
      name: 'INSTALLATION_ID, installation erasure',
      target: async () => {
        const d = await device(w, { platform: 'ANDROID' });
        return {
          recipient: { type: 'INSTALLATION_ID', value: d.installationId }, installationId: d.installationId, ids: [d.installationId, ...(await anonymousOf(d.installationId))],
          erase: () => w.h.services.engage.privacy.eraseInstallation(environmentId(), d.installationId, ACTOR),
        };
      },
    },
    {
      name: 'EXTERNAL_ID, profile erasure',
      target: async () => {
        const externalId = `race-${crypto.randomUUID()}`;
        const d = await device(w, { externalId });
        return {
          recipient: { type: 'EXTERNAL_ID', value: externalId }, installationId: d.installationId,
          ids: [d.installationId, await profileOf(d.installationId), externalId, ...(await anonymousOf(d.installationId))],
          erase: () => w.h.services.engage.privacy.eraseProfile(environmentId(), { externalId }, ACTOR),
        };
      },
    },
  ];

  it.each(cases)('send first ($name): the erasure waits for the send, then erases its delivery and inbox entry', { timeout: 60_000 }, async ({ target }) => {
    const t = await target();
    const template = (await w.h.sql.get<{ id: string }>('SELECT id FROM push_templates WHERE environment_id = ? AND key = ?', [w.envId, 'order.inbox']))!.id;
    const third = await hold('SELECT count FROM push_rate_windows WHERE template_id = $1 FOR UPDATE', [template]);
    const sent = Promise.resolve(send(w, sendBody(t.recipient), { template: 'order.inbox' }));
    // The send has resolved (and locked) its recipients and waits for the rate window.
    expect(await settledOrWaiting(sent, 1)).toBe('waiting');
    const erased = t.erase();
    await settledOrWaiting(erased, 2);
    await third.release();
    const res = await sent;
    await erased;
    expect(res.status).toBe(202);
    const body = (await res.json()) as { inboxEntryId: string | null; diagnostics: { deliveryId: string | null }[] };
    expect(body.inboxEntryId).not.toBeNull();
    expect(body.diagnostics.some((d) => d.deliveryId !== null)).toBe(true);
    expect(await w.h.sql.all('SELECT id FROM push_deliveries WHERE installation_id = ?', [t.installationId])).toEqual([]);
    expect(await w.h.sql.all('SELECT id FROM inbox_entries WHERE id = ?', [body.inboxEntryId])).toEqual([]);
    expect(await naming(t.ids)).toEqual([]);
  });

  it.each(cases)('erasure first ($name): the send waits for the erasure, then finds no recipient', { timeout: 60_000 }, async ({ target }) => {
    const t = await target();
    const third = await hold(
      `INSERT INTO revoked_installations (revocation_digest, environment_id, operation_id, revoked_at) VALUES ($1, $2, $3, '2026-01-01T00:00:00.000Z')`,
      [await digestOf(t.installationId), w.envId, crypto.randomUUID()],
    );
    const erased = t.erase();
    // The erasure has erased the installation's rows and waits to record its revocation.
    expect(await settledOrWaiting(erased, 1)).toBe('waiting');
    const sent = Promise.resolve(send(w, sendBody(t.recipient), { template: 'order.inbox' }));
    await settledOrWaiting(sent, 2);
    await third.release();
    await erased;
    const res = await sent;
    expect(await w.h.sql.all('SELECT id FROM push_deliveries WHERE installation_id = ?', [t.installationId])).toEqual([]);
    expect(await naming(t.ids)).toEqual([]);
    // As for a recipient that never was.
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([404, 'recipient_not_found']);
  });
});
