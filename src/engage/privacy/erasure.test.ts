import { randomUUID } from 'node:crypto';
import { getTableConfig, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { liveTables } from '../../../test/helpers/live-tables';
import { installationMentioned, installationOwned, profileOwned, type OwnedRows } from '../../db/schema/erasure';
import { bearer, bind, bootstrap, ingest, issueCode, op, setupEnvironment } from '../../../test/fixtures/engage';
import { eraseOwnedRows } from './store';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const INSTALLATION_COLUMN = /(^|_)installation(_id)?$/;
const PROFILE_COLUMN = /(^|_)profile(_id)?$/;
// A column that names whom something was sent to (a recipient value, an index of recipients).
const RECIPIENT_COLUMN = /(^|_)recipients?(_|$)/;
const nameOf = (r: OwnedRows) => getTableConfig(r.table).name;

const tables = () => liveTables(h.sql);

/** Tables that name an installation (or a profile) but that erasure does not know about. */
async function undeclared(): Promise<string[]> {
  const byInstallation = new Set(installationOwned.map(nameOf));
  const byProfile = new Set(profileOwned.map(nameOf));
  const mentioned = new Map(installationMentioned.map((m) => [getTableConfig(m.table).name, m.columns.map((c) => c.name)]));
  const out: string[] = [];
  for (const [table, columns] of await tables()) {
    const namesInstallation = table === 'installations' || columns.some((c) => INSTALLATION_COLUMN.test(c));
    const namesProfile = table === 'profiles' || columns.some((c) => PROFILE_COLUMN.test(c));
    const recipients = columns.filter((c) => RECIPIENT_COLUMN.test(c) && !/_type$/.test(c));
    if (namesInstallation && !byInstallation.has(table)) out.push(table);
    else if (namesProfile && !byInstallation.has(table) && !byProfile.has(table)) out.push(table);
    // A recipient column: erased with its owner (declared above), or redacted (every such column declared in installationMentioned).
    else if (recipients.length > 0 && !byInstallation.has(table) && !recipients.every((c) => mentioned.get(table)?.includes(c))) out.push(table);
  }
  return out.sort();
}

// Checked against the live database's own catalogue (sqlite_master, or information_schema).
describe('erasure registry (db/schema/erasure.ts)', () => {
  it('covers every table that holds installation or profile data', async () => {
    expect(await undeclared()).toEqual([]);
  });

  it('names owner columns that exist in the database', async () => {
    const live = await tables();
    for (const r of [...installationOwned, ...profileOwned]) {
      expect(live.get(nameOf(r)), nameOf(r)).toContain(r.owner.name);
      if (r.erase !== 'delete') for (const c of r.erase.clear) expect(live.get(nameOf(r))).toContain(c.name);
    }
    // A redacted table's columns exist, and the index that finds its rows is erased with installations and profiles.
    for (const m of installationMentioned) {
      for (const c of m.columns) expect(live.get(getTableConfig(m.table).name)).toContain(c.name);
      expect(installationOwned.map((r) => r.table)).toContain(m.index);
      expect(profileOwned.map((r) => r.table)).toContain(m.index);
    }
  });

  it('fails for a new table with an installation or profile column that is not declared', async () => {
    await h.sql.run('CREATE TABLE inbox_messages (id TEXT PRIMARY KEY, installation_id TEXT NOT NULL, body TEXT)');
    await h.sql.run('CREATE TABLE journey_runs (id TEXT PRIMARY KEY, target_profile_id TEXT)');
    // No installation column, but whom it was sent to (issue 21 point 16: push_sends was missed so).
    await h.sql.run('CREATE TABLE email_sends (id TEXT PRIMARY KEY, recipient_type TEXT, recipient_value TEXT, response TEXT)');
    expect(await undeclared()).toEqual(['email_sends', 'inbox_messages', 'journey_runs']);
  });
});

describe('privacy erasure clears exactly what the registry declares', () => {
  const countBy = async (r: OwnedRows, owner: string) =>
    (await h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${nameOf(r)}" WHERE "${r.owner.name}" = ?`, [owner]))!.n;
  const counts = async (rules: OwnedRows[], owner: string) => {
    const out: Record<string, number> = {};
    for (const r of rules) out[nameOf(r)] = await countBy(r, owner);
    return out;
  };
  const countsOfAll = async (rules: OwnedRows[], owners: string[]) => {
    const out: Record<string, number>[] = [];
    for (const o of owners) out.push(await counts(rules, o));
    return out;
  };

  it("leaves no declared row of the installation or its anonymous profile, and another installation's rows intact", async () => {
    const env = await setupEnvironment(h);
    const [erased, kept] = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
    for (const s of [erased, kept]) {
      await bind(h, env.accessKey, s, null); // a second anonymous generation
      await ingest(h, s, [
        op('EVENT_TRACKED', { name: 'e', properties: {} }, { generation: 1 }),
        op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a: 1 } }, { generation: 1 }),
        op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'n', subscribed: true }] }, { generation: 1 }),
        op('PROFILE_ATTRIBUTES_EDITED', { set: { p: 1 } }, { generation: 1 }),
        op('PROFILE_TAGS_EDITED', { add: ['t'] }, { generation: 1 }),
        op('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'n', channel: 'PUSH', subscribed: true }] }, { generation: 1 }),
      ]);
      await issueCode(h, s);
      // A push delivery to it (engage/messaging): the outbox holds its token and the message.
      await h.sql.run(
        `INSERT INTO push_deliveries (id, send_id, environment_id, template_id, installation_id, app_id, provider, token, content_hash, message, state,
          attempts, next_attempt_ms, expires_ms, created_ms, created_at, updated_at) VALUES (?, ?, ?, 't', ?, ?, 'APNS', 'tok', 'h', '{}', 'SENT', 1, 0, 0, 0, 'x', 'x')`,
        [randomUUID(), randomUUID(), env.environment.id, s.installationId, env.app.id],
      );
      // A send naming it and its anonymous profile (the index erasure finds such sends by).
      const profile = (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;
      for (const id of [s.installationId, profile])
        await h.sql.run('INSERT INTO push_send_recipients (recipient_id, send_id, environment_id) VALUES (?, ?, ?)', [id, randomUUID(), env.environment.id]);      // A test group naming it (console test sends, issue 24).
      const group = randomUUID();
      await h.sql.run("INSERT INTO test_groups (id, environment_id, name, created_at, updated_at) VALUES (?, ?, ?, 'x', 'x')", [group, env.environment.id, group]);
      await h.sql.run('INSERT INTO test_group_members (group_id, environment_id, position, installation_id) VALUES (?, ?, 0, ?)', [group, env.environment.id, s.installationId]);
      // Its inbox and its anonymous profile's (issue 27): entries, their counters, an operation batch.
      for (const [scope, owner] of [['INSTALLATION', s.installationId], ['PROFILE', profile]]) {
        await h.sql.run(
          "INSERT INTO inbox_entries (id, environment_id, scope, owner_id, seq, key, content, sent_at, sent_ms) VALUES (?, ?, ?, ?, 1, 'k', '{}', 'x', 0)",
          [randomUUID(), env.environment.id, scope, owner],
        );
        await h.sql.run('INSERT INTO inbox_owners (owner_id, environment_id, scope, last_seq, unread) VALUES (?, ?, ?, 1, 1)', [owner, env.environment.id, scope]);
      }
      await h.sql.run("INSERT INTO inbox_batches (installation_id, batch_id, environment_id, result, created_at) VALUES (?, ?, ?, '{}', 'x')", [s.installationId, randomUUID(), env.environment.id]);
      await h.sql.run("INSERT INTO inbox_operations (installation_id, operation_id, environment_id, status) VALUES (?, ?, ?, 'ACCEPTED')", [s.installationId, randomUUID(), env.environment.id]);
      // An exposure it reported and the variant it was served while anonymous (remote-state sync, issue 26).
      await h.sql.run(
        "INSERT INTO flag_exposures (environment_id, flag_key, experiment_id, revision, installation_id, variant_key, exposed_ms) VALUES (?, 'f', 'x', 1, ?, 'on', 0)",
        [env.environment.id, s.installationId],
      );
      await h.sql.run(
        "INSERT INTO flag_sticky_assignments (installation_id, flag_key, environment_id, experiment_id, variant_key, assigned_ms) VALUES (?, 'f', ?, 'x', 'on', 0)",
        [s.installationId, env.environment.id],
      );
      // An in-app message an automation made eligible for its anonymous profile, a run of that profile and the run's step (automations, issue 28).
      await h.sql.run('INSERT INTO in_app_grants (profile_id, message_id, environment_id, until_ms) VALUES (?, ?, ?, 1)', [profile, randomUUID(), env.environment.id]);
      const run = randomUUID();
      await h.sql.run(
        "INSERT INTO automation_runs (id, environment_id, automation_id, version, profile_id, status, context, entry, entered_at, entered_ms) VALUES (?, ?, ?, 1, ?, 'WAITING', '{}', '{}', 'x', 0)",
        [run, env.environment.id, randomUUID(), profile],
      );
      await h.sql.run(
        "INSERT INTO automation_steps (run_id, seq, environment_id, profile_id, step_id, kind, status, started_at) VALUES (?, 0, ?, ?, 'a', 'wait', 'RUNNING', 'x')",
        [run, env.environment.id, profile],
      );
      // Its impression window of a capped in-app message (issue 27).
      await h.sql.run('INSERT INTO in_app_impressions (installation_id, message_id, environment_id, window_start_ms, count) VALUES (?, ?, ?, 0, 1)', [
        s.installationId,
        randomUUID(),
        env.environment.id,
      ]);
    }
    const profilesOf = async (id: string) => (await h.services.engage.inspection.installation(id)).generations.map((g: { profileId: string }) => g.profileId);
    const [erasedProfiles, keptProfiles] = [await profilesOf(erased.installationId), await profilesOf(kept.installationId)];
    const before = {
      kept: await counts(installationOwned, kept.installationId),
      keptProfiles: await countsOfAll(profileOwned, keptProfiles),
    };
    expect(Object.values(await counts(installationOwned, erased.installationId)).every((n) => n > 0)).toBe(true);
    expect(Object.values(await counts(profileOwned, erasedProfiles[1])).every((n) => n > 0)).toBe(true);

    const res = await h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(erased.revocationCredential) });
    expect(res.status).toBe(204);

    expect(Object.values(await counts(installationOwned, erased.installationId)).every((n) => n === 0)).toBe(true);
    for (const p of erasedProfiles) expect(Object.values(await counts(profileOwned, p)).every((n) => n === 0)).toBe(true);
    expect(await counts(installationOwned, kept.installationId)).toEqual(before.kept);
    expect(await countsOfAll(profileOwned, keptProfiles)).toEqual(before.keptProfiles);
  });

  it('a rule may keep the rows and clear named columns (NULL, or empty when NOT NULL)', async () => {
    const deliveries = sqliteTable('deliveries', {
      id: text('id').primaryKey(),
      environmentId: text('environment_id').notNull(),
      installationId: text('installation_id'),
      token: text('token').notNull(),
      attempts: integer('attempts').notNull(),
    });
    await h.sql.run('CREATE TABLE deliveries (id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, installation_id TEXT, token TEXT NOT NULL, attempts INTEGER NOT NULL)');
    const insert = 'INSERT INTO deliveries VALUES (?, ?, ?, ?, 3)';
    await h.sql.run(insert, ['d1', 'env', 'inst', 'secret-token']);
    await h.sql.run(insert, ['d2', 'other-env', 'inst', 'other-token']);
    await h.sql.run(insert, ['d3', 'env', 'someone-else', 'their-token']);

    const erase = eraseOwnedRows(h.sql, [{ table: deliveries, owner: deliveries.installationId, erase: { clear: [deliveries.token, deliveries.installationId] } }]);
    await erase('inst', 'env');
    expect(await h.sql.all('SELECT id, installation_id AS "installationId", token, attempts FROM deliveries ORDER BY id')).toEqual([
      { id: 'd1', installationId: null, token: '', attempts: 3 },
      { id: 'd2', installationId: 'inst', token: 'other-token', attempts: 3 }, // another environment's row
      { id: 'd3', installationId: 'someone-else', token: 'their-token', attempts: 3 },
    ]);
  });
});
