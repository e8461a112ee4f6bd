import { randomUUID } from 'node:crypto';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { liveTables } from '../../../test/helpers/live-tables';
import { bearer, bind, bootstrap, ingest, issueCode, op, setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { environmentOwned, KEPT_AFTER_DELETION } from '../../db/schema/environment-deletion';
import { createWorkQueue } from '../../platform/work/queue';
import { silentLogger } from '../../platform/logger';
import { ENVIRONMENT_DELETION_WORK, createEnvironmentDeletion, environmentDeletionWork } from './deletion';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const STATE = '/v1/sdk/installation';
const nameOf = (t: Parameters<typeof getTableConfig>[0]) => getTableConfig(t).name;
// A column naming an environment, or a row an environment owns (an installation, profile, app, template, send, test group).
const OWNED_COLUMN = /^(environment|installation|profile|app|template|send|group|recipient)_id$/;

const tables = () => liveTables(h.sql);

const declared = () => new Set(environmentOwned.flatMap((r) => [nameOf(r.table), ...(r.children ?? []).map((c) => nameOf(c.table))]));

/** Tables holding an environment's data (an environment column, or a column naming a row it owns) the registry does not declare. */
async function undeclared(): Promise<string[]> {
  const known = declared();
  const out: string[] = [];
  for (const [table, columns] of await tables()) {
    if (table === 'environments' || known.has(table) || table in KEPT_AFTER_DELETION) continue;
    if (columns.some((c) => OWNED_COLUMN.test(c))) out.push(table);
  }
  return out.sort();
}

describe('environment deletion registry (db/schema/environment-deletion.ts)', () => {
  it('covers every table that holds data of an environment', async () => {
    expect(await undeclared()).toEqual([]);
  });

  it('names tables and columns that exist in the database', async () => {
    const live = await tables();
    for (const r of environmentOwned) {
      const cols = live.get(nameOf(r.table));
      expect(cols, nameOf(r.table)).toBeDefined();
      for (const c of [r.environment, ...r.key]) expect(cols, nameOf(r.table)).toContain(c.name);
      for (const c of r.children ?? []) expect(live.get(nameOf(c.table)), nameOf(c.table)).toContain(c.owner.name);
      if (r.children) expect(r.key).toHaveLength(1);
    }
  });

  it('fails for a new table holding environment data that is not declared', async () => {
    await h.sql.run('CREATE TABLE inbox_messages (id TEXT PRIMARY KEY, environment_id TEXT NOT NULL, body TEXT)');
    await h.sql.run('CREATE TABLE flag_rules (id TEXT PRIMARY KEY, template_id TEXT)');
    expect(await undeclared()).toEqual(['flag_rules', 'inbox_messages']);
  });
});

/** An environment with a row in every table the registry declares. */
async function populate(name: string) {
  const env = await setupEnvironment(h, name);
  const environmentId = env.environment.id;
  const sessions = [await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey), await bootstrap(h, env.app.appKey)];
  await bind(h, env.accessKey, sessions[0], `user-${name}`);
  for (const s of sessions.slice(0, 2)) {
    await ingest(h, s, [
      op('EVENT_TRACKED', { name: 'e', properties: {} }, { generation: s === sessions[0] ? 1 : 0 }),
      op('INSTALLATION_ATTRIBUTES_EDITED', { set: { a: 1 } }, { generation: s === sessions[0] ? 1 : 0 }),
      op('INSTALLATION_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'n', subscribed: true }] }, { generation: s === sessions[0] ? 1 : 0 }),
      op('PROFILE_ATTRIBUTES_EDITED', { set: { p: 1 } }, { generation: s === sessions[0] ? 1 : 0 }),
      op('PROFILE_TAGS_EDITED', { add: ['t'] }, { generation: s === sessions[0] ? 1 : 0 }),
      op('PROFILE_SUBSCRIPTIONS_EDITED', { changes: [{ list: 'n', channel: 'PUSH', subscribed: true }] }, { generation: s === sessions[0] ? 1 : 0 }),
    ]);
  }
  await issueCode(h, sessions[1]);
  // A privacy revocation (revoked_installations).
  expect((await h.request(`/v1/sdk/privacy/revocations/${randomUUID()}`, { method: 'PUT', headers: bearer(sessions[2].revocationCredential) })).status).toBe(204);
  // Messaging's rows, written as its services would.
  const inst = sessions[0].installationId;
  const profile = (await h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [inst]))!.p;
  const [template, send, group] = [randomUUID(), randomUUID(), randomUUID()];
  await h.sql.run("INSERT INTO push_credentials (app_id, environment_id, provider, info, sealed, updated_at) VALUES (?, ?, 'APNS', '{}', 'x', 'x')", [env.app.id, environmentId]);
  await h.sql.run("INSERT INTO push_templates (id, environment_id, key, status, latest_version, created_at, updated_at) VALUES (?, ?, 'welcome', 'ACTIVE', 1, 'x', 'x')", [template, environmentId]);
  await h.sql.run("INSERT INTO push_template_versions (template_id, version, state, definition, created_at) VALUES (?, 1, 'DRAFT', '{}', 'x')", [template]);
  await h.sql.run('INSERT INTO push_rate_windows (template_id, window_ms, count) VALUES (?, 0, 1)', [template]);
  await h.sql.run(
    `INSERT INTO push_sends (id, environment_id, template_id, template_version, idempotency_key, request_hash, access_key_id, recipient_type, recipient_value, response, created_at, created_ms)
     VALUES (?, ?, ?, 1, ?, 'h', ?, 'INSTALLATION', ?, '{}', 'x', 0)`,
    [send, environmentId, template, randomUUID(), env.accessKeyId, inst],
  );
  await h.sql.run('INSERT INTO push_send_recipients (recipient_id, send_id, environment_id) VALUES (?, ?, ?)', [profile, send, environmentId]);
  await h.sql.run(
    `INSERT INTO push_deliveries (id, send_id, environment_id, template_id, installation_id, app_id, provider, token, content_hash, message, state,
      attempts, next_attempt_ms, expires_ms, created_ms, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'APNS', 'tok', 'h', '{}', 'SENT', 1, 0, 0, 0, 'x', 'x')`,
    [randomUUID(), send, environmentId, template, inst, env.app.id],
  );
  await h.sql.run("INSERT INTO test_groups (id, environment_id, name, created_at, updated_at) VALUES (?, ?, 'qa', 'x', 'x')", [group, environmentId]);
  await h.sql.run('INSERT INTO test_group_members (group_id, environment_id, position, installation_id) VALUES (?, ?, 0, ?)', [group, environmentId, inst]);
  // The inbox's rows (issue 27).
  await h.sql.run("INSERT INTO inbox_entries (id, environment_id, scope, owner_id, seq, key, content, sent_at, sent_ms) VALUES (?, ?, 'PROFILE', ?, 1, 'k', '{}', 'x', 0)", [randomUUID(), environmentId, profile]);
  await h.sql.run("INSERT INTO inbox_owners (owner_id, environment_id, scope, last_seq, unread) VALUES (?, ?, 'PROFILE', 1, 1)", [profile, environmentId]);
  await h.sql.run("INSERT INTO inbox_batches (installation_id, batch_id, environment_id, result, created_at) VALUES (?, ?, ?, '{}', 'x')", [inst, randomUUID(), environmentId]);
  await h.sql.run("INSERT INTO inbox_operations (installation_id, operation_id, environment_id, status) VALUES (?, ?, ?, 'ACCEPTED')", [inst, randomUUID(), environmentId]);
  // Remote-state sync's rows (issue 26), written as its services would.
  const e = [environmentId];
  await h.sql.run("INSERT INTO sync_environments (environment_id, revision, updated_at) VALUES (?, 3, 'x')", e);
  await h.sql.run("INSERT INTO flags (environment_id, key, status, version, revision, definition, created_at, updated_at) VALUES (?, 'f', 'ACTIVE', 1, 1, '{}', 'x', 'x')", e);
  await h.sql.run("INSERT INTO flag_versions (environment_id, flag_key, version, definition, origin, actor, created_at) VALUES (?, 'f', 1, '{}', 'API', 'a', 'x')", e);
  await h.sql.run("INSERT INTO flag_schedules (id, environment_id, flag_key, due_ms, definition, status, actor, created_at) VALUES (?, ?, 'f', 0, '{}', 'PENDING', 'a', 'x')", [randomUUID(), environmentId]);
  await h.sql.run("INSERT INTO flag_exposures (environment_id, flag_key, experiment_id, revision, installation_id, variant_key, exposed_ms) VALUES (?, 'f', 'x', 1, ?, 'on', 0)", [environmentId, inst]);
  await h.sql.run("INSERT INTO flag_sticky_assignments (installation_id, flag_key, environment_id, variant_key, assigned_ms) VALUES (?, 'f', ?, 'on', 0)", [inst, environmentId]);
  await h.sql.run("INSERT INTO subscription_lists (environment_id, key, revision, definition, created_at, updated_at) VALUES (?, 'news', 2, '{}', 'x', 'x')", e);
  await h.sql.run("INSERT INTO push_channels (environment_id, app_id, key, revision, definition, created_at, updated_at) VALUES (?, ?, 'promo', 3, '{}', 'x', 'x')", [environmentId, env.app.id]);
  // Automations' rows (issue 28).
  const automation = randomUUID();
  await h.sql.run("INSERT INTO automations (environment_id, key, id, status, version, definition, created_at, updated_at) VALUES (?, 'a', ?, 'ACTIVE', 1, '{}', 'x', 'x')", [environmentId, automation]);
  await h.sql.run("INSERT INTO automation_versions (automation_id, version, environment_id, definition, created_at) VALUES (?, 1, ?, '{}', 'x')", [automation, environmentId]);
  await h.sql.run(
    "INSERT INTO automation_runs (id, environment_id, automation_id, version, profile_id, status, context, entry, entered_at, entered_ms) VALUES (?, ?, ?, 1, ?, 'RUNNING', '{}', '{}', 'x', 0)",
    [automation, environmentId, automation, profile],
  );
  await h.sql.run("INSERT INTO automation_steps (run_id, seq, environment_id, profile_id, step_id, kind, status, started_at) VALUES (?, 0, ?, ?, 's', 'exit', 'SUCCEEDED', 'x')", [automation, environmentId, profile]);
  await h.sql.run("INSERT INTO automation_triggers (environment_id, idempotency_key, access_key_id, request_hash, response, created_at) VALUES (?, 'k', 'a', 'h', '{}', 'x')", [environmentId]);
  // In-app messages' rows (issue 27).
  const message = randomUUID();
  await h.sql.run("INSERT INTO in_app_messages (environment_id, key, id, status, version, definition, revision, created_at, updated_at) VALUES (?, 'm', ?, 'DRAFT', 1, '{}', 0, 'x', 'x')", [environmentId, message]);
  await h.sql.run("INSERT INTO in_app_interactions (environment_id, message_id, variant_id, type, day, count) VALUES (?, ?, '', 'CLICK', '2026-01-01', 1)", [environmentId, message]);
  await h.sql.run('INSERT INTO in_app_impressions (installation_id, message_id, environment_id, window_start_ms, count) VALUES (?, ?, ?, 0, 1)', [inst, message, environmentId]);
  await h.sql.run('INSERT INTO in_app_grants (profile_id, message_id, environment_id, until_ms) VALUES (?, ?, ?, 1)', [profile, message, environmentId]);
  // Outbound webhooks' signing secrets (issue 28).
  await h.sql.run("INSERT INTO webhook_secrets (id, environment_id, generation, sealed, created_at, created_ms) VALUES (?, ?, 1, 'x', 'x', 0)", [randomUUID(), environmentId]);
  const owners = {
    installations: sessions.slice(0, 2).map((s) => s.installationId),
    profiles: (await h.sql.all<{ id: string }>('SELECT id FROM profiles WHERE environment_id = ?', [environmentId])).map((r) => r.id),
    push_templates: [template],
    apps: [env.app.id],
  };
  return { ...env, environmentId, owners, sessions };
}

/** Rows of the environment in each declared table: by its column, or for children by the parents' ids taken before. */
async function rowsOf(p: Awaited<ReturnType<typeof populate>>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const count = async (table: string, column: string, values: string[]) => {
    if (values.length === 0) return 0;
    const r = await h.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} IN (${values.map(() => '?').join(', ')})`, values);
    return Number(r!.n);
  };
  for (const r of environmentOwned) {
    out[nameOf(r.table)] = (out[nameOf(r.table)] ?? 0) + (await count(nameOf(r.table), r.environment.name, [p.environmentId]));
    const parents = p.owners[nameOf(r.table) as keyof typeof p.owners] ?? [];
    for (const c of r.children ?? []) out[nameOf(c.table)] = (out[nameOf(c.table)] ?? 0) + (await count(nameOf(c.table), c.owner.name, parents));
  }
  out.environments = await count('environments', 'id', [p.environmentId]);
  return out;
}

describe('environment deletion (a durable work item)', () => {
  it('erases every row of the environment in every declared table, and leaves another environment untouched', async () => {
    const doomed = await populate('doomed');
    const kept = await populate('kept');
    const before = await rowsOf(doomed);
    // Every declared table holds rows of it: the check below is not vacuous.
    expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
    const keptBefore = await rowsOf(kept);

    const deleting = await h.services.engage.environments.remove('doomed', ACTOR);
    expect(deleting.status).toBe('DELETING');
    // DELETING at once: the edge refuses its credentials while the job has not run; the other environment's work.
    expect((await h.request(STATE, { headers: bearer(doomed.sessions[0].credential) })).status).toBe(401);
    expect((await h.request(STATE, { headers: bearer(kept.sessions[0].credential) })).status).toBe(200);
    const item = (await h.services.store.work.ofKind(ENVIRONMENT_DELETION_WORK))[0];
    expect(JSON.parse(item.payload)).toMatchObject({ environmentId: doomed.environmentId });

    await h.services.work.runDue();
    expect(Object.entries(await rowsOf(doomed)).filter(([, n]) => n !== 0)).toEqual([]);
    expect(await rowsOf(kept)).toEqual(keptBefore);
    // Done: the item is gone (platform/work deletes a done item).
    expect(await h.services.store.work.find(item.id)).toBeUndefined();
    const actions = (await h.sql.all<{ action: string }>('SELECT action FROM audit_events WHERE environment_id = ? ORDER BY created_at, id', [doomed.environmentId])).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['environment.created', 'environment.deletion_started', 'environment.deleted']));
  });

  it('survives a restart: a job stopped half-way is taken over from the work item and finishes', async () => {
    const doomed = await populate('doomed');
    const kept = await populate('kept');
    const keptBefore = await rowsOf(kept);
    await h.services.engage.environments.remove(doomed.environmentId, ACTOR);
    // A first process erases some batches (of one row each) and dies: its lease renewal fails once it has done three.
    const small = createEnvironmentDeletion({ store: h.services.store, clock: h.clock, wake: () => undefined, batch: 1 });
    let renewals = 0;
    const lost = await small.run({ environmentId: doomed.environmentId, actor: ACTOR }, { renew: async () => ++renewals < 3 });
    expect(lost).toBe(false);
    expect((await h.services.engage.environments.find(doomed.environmentId))?.status).toBe('DELETING');
    // The restarted process: a new queue over the same database takes the item (due now, never settled) and finishes.
    const queue = createWorkQueue({ store: h.services.store, clock: h.clock, logger: silentLogger });
    queue.register(environmentDeletionWork(createEnvironmentDeletion({ store: h.services.store, clock: h.clock, wake: () => undefined, batch: 2 })));
    await queue.runDue();
    expect(await h.services.engage.environments.find(doomed.environmentId)).toBeUndefined();
    expect(Object.entries(await rowsOf(doomed)).filter(([, n]) => n !== 0)).toEqual([]);
    expect(await rowsOf(kept)).toEqual(keptBefore);
  });
});

