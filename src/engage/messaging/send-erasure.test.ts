import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFromDisk } from '../../platform/store/migrations';
import { bearer } from '../../../test/fixtures/engage';
import { ERASED_ID } from './send-erasure';
import { createPushWorld, device, send, sendBody, type PushWorld } from '../../../test/fixtures/messaging';

/**
 * Issue 21 point 16: after a privacy revocation the erased installation (and the anonymous
 * profile only it used) is named nowhere: not in push_sends (recipient value, stored answer),
 * not in what `engage sends show` prints, not in any other table.
 */
type Device = Awaited<ReturnType<typeof device>>;

async function admitted(w: PushWorld, recipient: { type: string; value: string }) {
  const body = sendBody(recipient);
  const res = await send(w, body);
  expect(res.status).toBe(202);
  return { body, response: (await res.json()) as { requestId: string; diagnostics: { installationId: string; code: string; deliveryId: string | null }[] } };
}

async function revoke(w: PushWorld, d: Device) {
  const res = await w.h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(d.revocationCredential) });
  expect(res.status).toBe(204);
}

/** Every row of every table, as JSON text, on either engine. */
async function everyRow(w: PushWorld): Promise<Map<string, string>> {
  const tables =
    w.h.sql.dialect === 'sqlite'
      ? await w.h.sql.all<{ t: string }>(`SELECT name AS t FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      : await w.h.sql.all<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`);
  const out = new Map<string, string>();
  for (const { t } of tables) out.set(t, JSON.stringify(await w.h.sql.all(`SELECT * FROM "${t}"`)));
  return out;
}

const sendRow = (w: PushWorld, id: string) => w.h.sql.get<Record<string, unknown>>('SELECT * FROM push_sends WHERE id = ?', [id]);

describe('privacy revocation erases the installation from sends (issue 21 point 16)', () => {
  let w: PushWorld;
  let erased: Device;
  let anonymous: Device;
  let kept: Device;
  let optedOut: Device;
  let anonymousProfile: string;
  let externalId: string;
  const sends: Record<'installation' | 'external' | 'profile' | 'optedOut', Awaited<ReturnType<typeof admitted>>> = {} as never;

  beforeAll(async () => {
    w = await createPushWorld();
    externalId = `person-${randomUUID()}`;
    erased = await device(w, { externalId });
    kept = await device(w, { platform: 'ANDROID', externalId });
    anonymous = await device(w);
    anonymousProfile = (await w.h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [anonymous.installationId]))!.p;
    sends.installation = await admitted(w, { type: 'INSTALLATION_ID', value: erased.installationId });
    sends.external = await admitted(w, { type: 'EXTERNAL_ID', value: externalId });
    sends.profile = await admitted(w, { type: 'PROFILE', value: anonymousProfile });
    await w.h.services.engage.messaging.deliveries.run();
    // A skipped installation is named in diagnostics too (no delivery row points at that send).
    optedOut = await device(w, { ops: [{ operationId: randomUUID(), generation: 0, type: 'PUSH_SUBSCRIPTION_SET', occurredAt: '2026-01-01T00:00:05.000Z', payload: { state: 'OPTED_OUT' } }] });
    sends.optedOut = await admitted(w, { type: 'INSTALLATION_ID', value: optedOut.installationId });
    expect(sends.optedOut.response.diagnostics[0].code).toBe('PUSH_UNSUBSCRIBED');
    await revoke(w, erased);
    await revoke(w, anonymous);
    await revoke(w, optedOut);
  });
  afterAll(() => w.close());

  const gone = () => [erased.installationId, anonymous.installationId, anonymousProfile, optedOut.installationId];

  it('no push_sends row names an erased installation or anonymous profile any more', async () => {
    for (const s of Object.values(sends)) {
      const row = JSON.stringify(await sendRow(w, s.response.requestId));
      for (const id of gone()) expect(row).not.toContain(id);
    }
  });

  it('the recipient and the erased entries read as the nil UUID; the counts and the rest stay', async () => {
    const one = (await sendRow(w, sends.installation.response.requestId))!;
    expect(one.recipient_value).toBe(ERASED_ID);
    const answer = JSON.parse(one.response as string) as { diagnostics: { installationId: string; code: string; deliveryId: string | null; appId: string }[]; requestId: string };
    expect(answer.requestId).toBe(sends.installation.response.requestId);
    expect(answer.diagnostics).toEqual([{ ...sends.installation.response.diagnostics[0], installationId: ERASED_ID, deliveryId: null }]);

    // The person's send: the external id and the other installation stay; the erased one's entry keeps app, platform and code.
    const ext = (await sendRow(w, sends.external.response.requestId))!;
    expect(ext.recipient_value).toBe(externalId);
    const diags = (JSON.parse(ext.response as string) as { diagnostics: { installationId: string; code: string }[] }).diagnostics;
    expect(diags.map((d) => d.code)).toEqual(sends.external.response.diagnostics.map((d) => d.code));
    expect(diags.map((d) => d.installationId).sort()).toEqual([ERASED_ID, kept.installationId].sort());
  });

  it('engage sends show (the inspection service the CLI calls) shows them redacted', async () => {
    const inspection = w.h.services.engage.messaging.inspection;
    for (const s of Object.values(sends)) {
      const shown = JSON.stringify(await inspection.showSend(s.response.requestId));
      for (const id of gone()) expect(shown).not.toContain(id);
    }
    const shown = await inspection.showSend(sends.profile.response.requestId);
    expect(shown.recipient).toEqual({ type: 'PROFILE', value: ERASED_ID });
  });

  it('a replay of the erased installation’s send answers the redacted response, and sends nothing', async () => {
    const before = w.apns.requests.length;
    const res = await send(w, sends.installation.body);
    expect(res.status).toBe(202);
    const text = await res.text();
    expect(text).not.toContain(erased.installationId);
    expect((JSON.parse(text) as { requestId: string }).requestId).toBe(sends.installation.response.requestId);
    await w.h.services.engage.messaging.deliveries.run();
    expect(w.apns.requests.length).toBe(before);
  });

  it('no table holds the erased ids or the erased push token', async () => {
    const named: string[] = [];
    for (const [table, rows] of await everyRow(w)) for (const v of [...gone(), erased.token!, anonymous.token!]) if (rows.includes(v)) named.push(`${table}: ${v}`);
    expect(named).toEqual([]);
    // The kept installation is still there (the scan sees data).
    expect((await everyRow(w)).get('push_sends')).toContain(kept.installationId);
  });
});

describe('migration 0017 on a ledger written before it', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  });
  afterAll(() => w.close());

  it('indexes what still exists and redacts installations erased before it', async () => {
    const live = await device(w);
    const gone = randomUUID();
    const answer = (ids: string[]) =>
      JSON.stringify({
        accepted: true, resolvedLocale: 'en', renderedTitle: 'Order A-17 shipped', renderedBody: 'b', renderedDeepLink: 'shop://x', renderedCustomData: { orderId: 'A-17' },
        targetAppIds: [w.ios.id],
        diagnostics: ids.map((id) => ({ installationId: id, appId: w.ios.id, platform: 'IOS', code: 'TARGETED', deliveryId: randomUUID() })),
        requestId: 'r',
      });
    const insert = (id: string, type: string, value: string, response: string) =>
      w.h.sql.run(
        `INSERT INTO push_sends (id, environment_id, template_id, template_version, idempotency_key, request_hash, access_key_id, recipient_type, recipient_value, response, created_at, created_ms)
         VALUES (?, ?, 't', 1, ?, 'h', 'k', ?, ?, ?, 'x', 0)`,
        [id, w.envId, id, type, value, response],
      );
    const [toGone, toLive, toPerson] = [randomUUID(), randomUUID(), randomUUID()];
    await insert(toGone, 'INSTALLATION_ID', gone, answer([gone]));
    const liveAnswer = answer([live.installationId]);
    await insert(toLive, 'INSTALLATION_ID', live.installationId, liveAnswer);
    await insert(toPerson, 'EXTERNAL_ID', 'person-1', answer([gone, live.installationId]));

    const migration = migrationsFromDisk(w.h.sql.dialect === 'postgres' ? 'pg' : '').find((m) => m.tag === '0017_push_send_recipients')!;
    // Everything after the CREATE TABLE, as the migration runs it.
    for (const stmt of migration.sql.split('--> statement-breakpoint').slice(1)) await w.h.sql.run(stmt);

    const index = await w.h.sql.all<{ r: string; s: string }>('SELECT recipient_id AS r, send_id AS s FROM push_send_recipients WHERE send_id IN (?, ?, ?) ORDER BY send_id, recipient_id', [toGone, toLive, toPerson]);
    expect(index.sort((a, b) => a.s.localeCompare(b.s))).toEqual(
      [{ r: live.installationId, s: toLive }, { r: live.installationId, s: toPerson }].sort((a, b) => a.s.localeCompare(b.s)),
    );
    const row = async (id: string) => (await w.h.sql.get<{ v: string; response: string }>('SELECT recipient_value AS v, response FROM push_sends WHERE id = ?', [id]))!;
    const erased = await row(toGone);
    expect(erased.v).toBe(ERASED_ID);
    expect(erased.response).not.toContain(gone);
    const parsed = JSON.parse(erased.response) as { renderedTitle: string; renderedCustomData: unknown; diagnostics: { installationId: string; deliveryId: unknown; code: string }[]; requestId: string };
    expect(parsed).toMatchObject({ renderedTitle: '', renderedCustomData: {}, requestId: 'r', diagnostics: [{ installationId: ERASED_ID, deliveryId: null, code: 'TARGETED' }] });
    const person = await row(toPerson);
    expect(person.v).toBe('person-1');
    expect(person.response).not.toContain(gone);
    expect((JSON.parse(person.response) as { diagnostics: { installationId: string }[] }).diagnostics.map((d) => d.installationId)).toEqual([ERASED_ID, live.installationId]);
    // A send naming only what still exists is untouched, byte for byte.
    expect(await row(toLive)).toEqual({ v: live.installationId, response: liveAnswer });
  });
});
