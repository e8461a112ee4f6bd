import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE, createHarness, type Harness } from '../../../test/helpers/harness';
import { createEngageAdminFixture, type EngageAdminFixture } from '../../../test/helpers/engage-admin';
import { setupEnvironment } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';
import { createLogger } from '../../platform/logger';
import { ENGAGE_ADMIN_API } from '../../platform/operator-apis';
import { newSigningSecret, signatureHeader, webhookHeaders } from './signing';

/**
 * Outbound webhooks' signatures and per-environment secrets (issue 28): every signature checked
 * by the reference implementation (the `standardwebhooks` package), not by our own code.
 */
let h: Harness;
let a: EngageAdminFixture;
let shop: string;
let other: string;
beforeAll(async () => {
  h = await createHarness();
  a = await createEngageAdminFixture(h);
  shop = (await setupEnvironment(h, 'shop')).environment.id;
  other = (await setupEnvironment(h, 'other')).environment.id;
}, 60_000);
afterAll(() => h.close());

const signing = () => h.services.engage.webhooks.signing;
const HOUR = 3_600_000;
const body = JSON.stringify({ type: 'automation.step', data: { runId: 'r1', name: 'Zoë ✓' } });

/** What a receiver holding `secret` concludes of a message signed by `secrets` (the reference verifier, real time: it allows ±5 min). */
function verifies(secret: string, secrets: string[], payload = body, sent = body): boolean {
  const headers = webhookHeaders(secrets, 'run-1.step-2', Math.floor(Date.now() / 1000), sent);
  try {
    new Webhook(secret).verify(payload, headers);
    return true;
  } catch {
    return false;
  }
}

describe('Standard Webhooks signatures (signing.ts)', () => {
  it('a whsec_ secret of 32 random bytes; the reference verifier accepts our signature, refuses another secret, another body, an old timestamp', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(secret);
    expect(verifies(secret, [secret])).toBe(true);
    expect(verifies(newSigningSecret(), [secret])).toBe(false);
    expect(verifies(secret, [secret], body + ' ')).toBe(false);
    const stale = { 'webhook-id': 'x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 600), 'webhook-signature': signatureHeader([secret], 'x', Math.floor(Date.now() / 1000) - 600, body) };
    expect(() => new Webhook(secret).verify(body, stale)).toThrow();
  });

  it('one v1 signature per secret, newest first, space-separated: each secret alone verifies', () => {
    const [newer, older] = [newSigningSecret(), newSigningSecret()];
    const header = signatureHeader([newer, older], 'id', 1_700_000_000, body);
    expect(header.split(' ')).toHaveLength(2);
    expect(header.split(' ')[0]).toBe(signatureHeader([newer], 'id', 1_700_000_000, body));
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(newer).sign('id', new Date(1_700_000_000_000), body)).toBe(header.split(' ')[0]);
    expect(verifies(newer, [newer, older])).toBe(true);
    expect(verifies(older, [newer, older])).toBe(true);
    expect(() => signatureHeader([], 'id', 1, body)).toThrow();
  });
});

describe('per-environment secrets with rotation (secrets.ts)', () => {
  it('the first use makes one secret, even for concurrent first uses; it is sealed at rest', async () => {
    const env = (await setupEnvironment(h, 'first')).environment.id;
    const at = h.clock.now().getTime();
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => signing().signingSecrets(env, at)));
    expect(new Set(all.map((s) => s.join(' '))).size).toBe(1);
    expect(all[0]).toHaveLength(1);
    const rows = await h.sql.all<{ sealed: string }>('SELECT sealed FROM webhook_secrets WHERE environment_id = ?', [env]);
    expect(rows).toHaveLength(1);
    expect(rows[0].sealed).not.toContain(all[0][0].slice(6));
    expect(await signing().signingSecrets(env, at)).toEqual(all[0]);
  });

  it('rotation overlap: a receiver holding only the old, or only the new secret verifies during the overlap; only the new one after', async () => {
    const t0 = h.clock.now().getTime();
    const [old] = await signing().signingSecrets(shop, t0);
    const rotated = await signing().rotate('shop', { overlapSeconds: 3600 }, ACTOR);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.secrets.map((s) => s.current)).toEqual([true, false]);
    expect(rotated.secrets[1].retiresAt).toBe(new Date(t0 + HOUR).toISOString());

    const during = await signing().signingSecrets(shop, t0 + HOUR - 1);
    expect(during).toEqual([rotated.secret, old]);
    expect(verifies(old, during)).toBe(true);
    expect(verifies(rotated.secret, during)).toBe(true);

    const after = await signing().signingSecrets(shop, t0 + HOUR);
    expect(after).toEqual([rotated.secret]);
    expect(verifies(old, after)).toBe(false);
    expect(verifies(rotated.secret, after)).toBe(true);
  });

  it('the default overlap is a day; overlap 0 stops every older secret at once; a second rotation never lengthens an overlap', async () => {
    const env = (await setupEnvironment(h, 'rotations')).environment.id;
    const t0 = h.clock.now().getTime();
    const first = (await signing().rotate(env, {}, ACTOR)).secret;
    const second = await signing().rotate(env, undefined, ACTOR);
    expect(second.secrets[1].retiresAt).toBe(new Date(t0 + 24 * HOUR).toISOString());
    const third = await signing().rotate(env, { overlapSeconds: 7 * 86_400 }, ACTOR);
    // The first keeps its day; the second retires in 7 days.
    expect(third.secrets.map((s) => s.retiresAt)).toEqual([null, new Date(t0 + 7 * 24 * HOUR).toISOString(), new Date(t0 + 24 * HOUR).toISOString()]);
    expect(await signing().signingSecrets(env, t0)).toEqual([third.secret, second.secret, first]);
    const fourth = await signing().rotate(env, { overlapSeconds: 0 }, ACTOR);
    expect(await signing().signingSecrets(env, t0)).toEqual([fourth.secret]);
    expect(fourth.secrets).toHaveLength(1);
  });

  it('concurrent rotations (two processes on PostgreSQL): each answers a new secret or 409 operation_conflict; one current secret, a rotation’s', async () => {
    const env = (await setupEnvironment(h, 'racing')).environment.id;
    // On SQLite the two "processes" of a test share one thread, where one's busy wait would block the other's transaction: one process there.
    const other = TEST_ENGINE === 'postgres' ? await h.otherProcess() : h.services;
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => (i % 2 ? other : h.services).engage.webhooks.signing.rotate(env, { overlapSeconds: 60 }, ACTOR)));
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'operation_conflict' });
    expect(won.length).toBeGreaterThan(0);
    expect(new Set(won.map((w) => w.secret)).size).toBe(won.length);
    const view = await signing().show(env);
    expect(view.secrets.filter((s) => s.retiresAt === null)).toHaveLength(1);
    expect(won.map((w) => w.id)).toContain(view.secrets[0].id);
    expect(view.secrets).toHaveLength(won.length);
    const live = await signing().signingSecrets(env);
    expect(live[0]).toBe(won.find((w) => w.id === view.secrets[0].id)!.secret);
  });

  it('refuses an overlap out of 0..604800 and a change under an environment being deleted, naming the field, never 5xx', async () => {
    for (const bad of [{ overlapSeconds: -1 }, { overlapSeconds: 604_801 }, { overlapSeconds: '60' }, { overlapSeconds: 1.5 }, { extra: 1 }]) {
      await expect(signing().rotate('shop', bad, ACTOR), JSON.stringify(bad)).rejects.toMatchObject({ code: 'invalid_request' });
    }
    await expect(signing().rotate('nowhere', {}, ACTOR)).rejects.toMatchObject({ code: 'unknown_environment' });
    await expect(signing().signingSecrets('nowhere')).rejects.toMatchObject({ code: 'unknown_environment' });
  });

  it('environments are isolated: their own secrets; rotating one leaves the other; a row moved to another environment does not open', async () => {
    const at = h.clock.now().getTime();
    const mine = await signing().signingSecrets(shop, at);
    const theirs = await signing().signingSecrets(other, at);
    expect(theirs.some((s) => mine.includes(s))).toBe(false);
    await signing().rotate('shop', { overlapSeconds: 0 }, ACTOR);
    expect(await signing().signingSecrets(other, at)).toEqual(theirs);
    // The sealed text is bound to its environment (the AAD): copied elsewhere, it cannot be opened.
    const env = (await setupEnvironment(h, 'thief')).environment.id;
    await h.sql.run(
      "INSERT INTO webhook_secrets (id, environment_id, generation, sealed, created_at, created_ms) SELECT id || '-copy', ?, 1, sealed, created_at, created_ms FROM webhook_secrets WHERE environment_id = ? AND retires_ms IS NULL",
      [env, other],
    );
    await expect(signing().signingSecrets(env, at)).rejects.toThrow();
  });
});

describe('GET|POST /environments/{e}/webhook-signing (the administration API)', () => {
  it('lists ids and times, never a secret; rotate answers the new secret once (audited without it); read scope cannot rotate; bad input is 400', async () => {
    const env = (await setupEnvironment(h, 'admin')).environment.id;
    const all = await a.token();
    const readOnly = await a.token([ENGAGE_ADMIN_API.scopes.read]);
    const path = '/environments/admin/webhook-signing';
    expect(await (await a.call('GET', path, readOnly)).json()).toEqual({ environmentId: env, secrets: [] });
    const [first] = await signing().signingSecrets(env);

    expect((await a.call('POST', `${path}/rotate`, readOnly, {})).status).toBe(403);
    for (const bad of [{ overlapSeconds: -5 }, { overlapSeconds: 'x' }, { other: 1 }]) {
      const res = await a.call('POST', `${path}/rotate`, all, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
    const res = await a.call('POST', `${path}/rotate`, all, { overlapSeconds: 600 });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as { id: string; secret: string; secrets: { id: string; current: boolean; retiresAt: string | null }[] };
    expect(rotated.secret).toMatch(/^whsec_/);
    // Without a body: the default overlap.
    const again = await a.call('POST', `${path}/rotate`, all);
    expect(again.status).toBe(200);
    const latest = (await again.json()) as { secret: string };

    const listed = await a.call('GET', path, readOnly);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    const view = JSON.parse(text) as { secrets: { id: string; current: boolean }[] };
    expect(view.secrets).toHaveLength(3);
    expect(view.secrets[0].current).toBe(true);
    for (const s of [first, rotated.secret, latest.secret]) expect(text).not.toContain(s.slice(6, 30));

    const events = await h.sql.all<{ details: string }>("SELECT details FROM audit_events WHERE action = 'environment.webhook_signing.rotated' AND environment_id = ?", [env]);
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[0].details)).toMatchObject({ environmentId: env, secretId: rotated.id, overlapSeconds: 600 });
    for (const e of events) for (const s of [first, rotated.secret, latest.secret]) expect(e.details).not.toContain(s.slice(6, 30));

    expect((await a.call('GET', '/environments/nowhere/webhook-signing', all)).status).toBe(404);
  });
});

describe('secrets never reach the logs', () => {
  it('at debug level, rotations (API and service), listings, refusals and signing log no secret', async () => {
    const lines: string[] = [];
    const logged = await createHarness({}, { logger: createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) }) });
    try {
      const fixture = await createEngageAdminFixture(logged);
      const env = (await setupEnvironment(logged, 'logged')).environment.id;
      const token = await fixture.token();
      const secrets = [...(await logged.services.engage.webhooks.signing.signingSecrets(env))];
      const res = await fixture.call('POST', '/environments/logged/webhook-signing/rotate', token, { overlapSeconds: 60 });
      secrets.push(((await res.json()) as { secret: string }).secret);
      secrets.push((await logged.services.engage.webhooks.signing.rotate(env, {}, ACTOR)).secret);
      expect((await fixture.call('POST', '/environments/logged/webhook-signing/rotate', token, { overlapSeconds: -1 })).status).toBe(400);
      expect((await fixture.call('GET', '/environments/logged/webhook-signing', token)).status).toBe(200);
      secrets.push(...(await logged.services.engage.webhooks.signing.signingSecrets(env)));
      expect(lines.length).toBeGreaterThan(0);
      for (const s of secrets) expect(lines.filter((l) => l.includes(s.slice(6, 30)))).toEqual([]);
    } finally {
      await logged.close();
    }
  }, 60_000);
});
