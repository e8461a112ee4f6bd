import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, json } from '../../../test/fixtures/engage';
import { createPushWorld, device, send, sendBody, templateFile, VARS, deliveryRows, type PushWorld } from '../../../test/fixtures/messaging';
import { ACTOR } from '../../../test/fixtures/actor';

const problem = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { code: string; message: string } });

describe('POST /api/v1/environments/{environmentId}/transactional/{templateKey}/send', () => {
  let w: PushWorld;
  beforeAll(async () => {
    w = await createPushWorld();
  });
  afterAll(() => w.close());

  it('admits a delivery per reachable installation and answers 202 with every field', async () => {
    const ios = await device(w, { externalId: 'user-1' });
    const android = await device(w, { platform: 'ANDROID', externalId: 'user-1' });
    const res = await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-1' }));
    expect(res.status).toBe(202);
    const body = (await res.json()) as Record<string, unknown> & { diagnostics: { installationId: string; code: string; deliveryId: string | null }[] };
    expect(Object.keys(body).sort()).toEqual(
      ['accepted', 'diagnostics', 'renderedBody', 'renderedCustomData', 'renderedDeepLink', 'renderedTitle', 'requestId', 'resolvedLocale', 'targetAppIds'].sort(),
    );
    expect(body).toMatchObject({
      accepted: true,
      resolvedLocale: 'en',
      renderedTitle: 'Order A-17 shipped',
      renderedBody: 'Total 1,234.5, shipped March 4, 2026',
      renderedDeepLink: 'shop://orders/A-17',
      renderedCustomData: { orderId: 'A-17', gift: 'false' },
      targetAppIds: [w.ios.id, w.android.id],
    });
    expect(body.diagnostics.map((d) => [d.installationId, d.code]).sort()).toEqual([[ios.installationId, 'TARGETED'], [android.installationId, 'TARGETED']].sort());
    const rows = await deliveryRows(w, 'send_id = ?', [body.requestId]);
    expect(rows.map((r) => [r.id, r.state]).sort()).toEqual(body.diagnostics.map((d) => [d.deliveryId, 'PENDING']).sort());
  });

  it('resolves the locale: requested, its language, then the default; formats numbers and dates for it', async () => {
    await device(w, { externalId: 'user-de' });
    const de = (await (await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-de' }, { locale: 'de-AT' }))).json()) as Record<string, unknown>;
    expect(de).toMatchObject({ resolvedLocale: 'de', renderedTitle: 'Bestellung A-17 versandt', renderedBody: 'Summe 1.234,5, versandt am 4. März 2026' });
    // The German localization has no deep link: it falls back along the chain to the default's.
    expect(de.renderedDeepLink).toBe('shop://orders/A-17');
    const other = (await (await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-de' }, { locale: 'ja-JP' }))).json()) as Record<string, unknown>;
    expect(other.resolvedLocale).toBe('en');
    const none = (await (await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-de' }, { locale: undefined }))).json()) as Record<string, unknown>;
    expect(none.resolvedLocale).toBe('en');
  });

  it('names the variable at fault', async () => {
    await device(w, { externalId: 'user-vars' });
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: 1, shippedOn: '2026-01-01' }, 'variables.orderId: is required'],
      [{ ...VARS, amount: '12' }, 'variables.amount: must be a number'],
      [{ ...VARS, shippedOn: 'yesterday' }, 'variables.shippedOn: must be an RFC 3339 date (YYYY-MM-DD) or date-time'],
      [{ ...VARS, gift: 'yes' }, 'variables.gift: must be a boolean'],
      [{ ...VARS, trackingUrl: 'not a url' }, 'variables.trackingUrl: must be an absolute URL'],
      [{ ...VARS, coupon: 'X' }, 'variables.coupon: is not a variable of template order.shipped'],
    ];
    for (const [variables, message] of cases) {
      const p = await problem(await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-vars' }, { variables })));
      expect(p).toEqual({ status: 400, type: 'application/problem+json', body: { code: 'invalid_variables', message } });
    }
  });

  it('takes only real RFC 3339 dates and date-times (issue 21 point 13): 2026-02-30 is refused, not rendered as March 2', async () => {
    await device(w, { externalId: 'user-dates' });
    const go = (shippedOn: string) => send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-dates' }, { variables: { ...VARS, shippedOn } }));
    const message = 'variables.shippedOn: must be an RFC 3339 date (YYYY-MM-DD) or date-time';
    for (const bad of [
      '2026-02-30', '2026-13-01', '2026-00-10', '2026-04-31', '2025-02-29', '1900-02-29', '2026-3-4', '2026-03-04 ',
      '2026-03-04T24:00:00Z', '2026-03-04T23:60:00Z', '2026-03-04T10:00Z', '2026-03-04T10:00:00', '2026-02-30T10:00:00Z', '2026-03-04T10:00:00+24:00',
    ])
      expect([bad, await problem(await go(bad))]).toEqual([bad, { status: 400, type: 'application/problem+json', body: { code: 'invalid_variables', message } }]);
    const body = async (shippedOn: string) => ((await (await go(shippedOn)).json()) as { renderedBody: string }).renderedBody;
    expect(await body('2024-02-29')).toBe('Total 1,234.5, shipped February 29, 2024');
    expect(await body('2000-02-29')).toBe('Total 1,234.5, shipped February 29, 2000');
    expect(await body('2026-03-04T23:30:00-02:00')).toBe('Total 1,234.5, shipped March 5, 2026 at 1:30 AM');
    expect(await body('2026-03-04t10:15:00.5z')).toBe('Total 1,234.5, shipped March 4, 2026 at 10:15 AM');
  });

  it('rejects malformed requests and TEST_GROUP with a 400 naming the field', async () => {
    const cases: [unknown, string, string][] = [
      [{ recipient: { type: 'TEST_GROUP', value: 'qa' }, idempotencyKey: 'k' }, 'recipient_type_not_allowed', 'recipient.type: TEST_GROUP is only for console test sends'],
      [{ recipient: { type: 'EMAIL', value: 'x' }, idempotencyKey: 'k' }, 'invalid_request', 'recipient.type: must be one of EXTERNAL_ID, PROFILE, INSTALLATION_ID, TEST_GROUP'],
      [{ recipient: { type: 'EXTERNAL_ID', value: 'x' } }, 'invalid_request', 'idempotencyKey: is required'],
      [{ recipient: { type: 'PROFILE', value: 'nope' }, idempotencyKey: 'k' }, 'invalid_request', 'recipient.value: must be a UUID'],
      [{ recipient: { type: 'EXTERNAL_ID', value: 'x' }, idempotencyKey: 'k', extra: 1 }, 'invalid_request', 'extra: is not an allowed property'],
    ];
    for (const [body, code, message] of cases) expect(await problem(await send(w, body as Record<string, unknown>))).toEqual({ status: 400, type: 'application/problem+json', body: { code, message } });
  });

  it('answers 401 without a valid key, for another environment, and when the key may use none of the template’s apps', async () => {
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-1' });
    expect((await send(w, body, { key: 'svc_key_nope' })).status).toBe(401);
    const other = await w.h.services.engage.environments.create({ name: 'other' }, ACTOR);
    const otherApp = await w.h.services.engage.environments.createApp({ environment: other.id, platform: 'IOS', name: 'o' }, ACTOR);
    const otherKey = await w.h.services.engage.environments.createAccessKey({ environment: other.id, apps: [otherApp.id] }, ACTOR);
    expect((await send(w, body, { key: otherKey.key })).status).toBe(401);
    // Another environment's path is refused with the credential, before the body is read
    // (issue 22 point 4: the route's declaration validates only what the key may send).
    const otherPath = await problem(await send(w, { recipient: 'not an object' }, { env: other.id }));
    expect(otherPath).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    // A key of this environment restricted to an app the template does not target.
    const stray = await w.h.services.engage.environments.createApp({ environment: w.envId, platform: 'IOS', name: 'stray' }, ACTOR);
    const strayKey = await w.h.services.engage.environments.createAccessKey({ environment: w.envId, apps: [stray.id] }, ACTOR);
    const p = await problem(await send(w, body, { key: strayKey.key }));
    expect(p.status).toBe(401);
    expect(p.body.code).toBe('unauthorized');
  });

  it('skips opted-out, unsubscribed, denied and token-less installations with their code, and admits nothing for them', async () => {
    const optedOut = await device(w, { externalId: 'user-skip', ops: [] });
    await w.h.request('/v1/sdk/operations:batch', json({ batchId: crypto.randomUUID(), operations: [{ operationId: crypto.randomUUID(), generation: optedOut.generation, type: 'PRIVACY_STATE_SET', occurredAt: '2026-01-01T00:00:01.000Z', payload: { state: 'OPTED_OUT' } }] }, bearer(optedOut.credential)));
    const unsubscribed = await device(w, { externalId: 'user-skip' });
    await w.h.request('/v1/sdk/operations:batch', json({ batchId: crypto.randomUUID(), operations: [{ operationId: crypto.randomUUID(), generation: unsubscribed.generation, type: 'PUSH_SUBSCRIPTION_SET', occurredAt: '2026-01-01T00:00:01.000Z', payload: { state: 'OPTED_OUT' } }] }, bearer(unsubscribed.credential)));
    const denied = await device(w, { externalId: 'user-skip', permission: 'DENIED' });
    const undetermined = await device(w, { externalId: 'user-skip', permission: 'NOT_DETERMINED' });
    const noToken = await device(w, { externalId: 'user-skip', token: null });
    const body = (await (await send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-skip' }))).json()) as { accepted: boolean; diagnostics: { installationId: string; code: string; deliveryId: null }[] };
    const code = (id: string) => body.diagnostics.find((d) => d.installationId === id)?.code;
    expect(body.accepted).toBe(false);
    expect(code(optedOut.installationId)).toBe('PRIVACY_OPTED_OUT');
    expect(code(unsubscribed.installationId)).toBe('PUSH_UNSUBSCRIBED');
    expect(code(denied.installationId)).toBe('PUSH_PERMISSION_DENIED');
    expect(code(undetermined.installationId)).toBe('PUSH_PERMISSION_NOT_DETERMINED');
    expect(code(noToken.installationId)).toBe('NO_PUSH_TOKEN');
    expect(body.diagnostics.every((d) => d.deliveryId === null)).toBe(true);
    const ids = [optedOut, unsubscribed, denied, undetermined, noToken].map((s) => s.installationId);
    expect(await deliveryRows(w, `installation_id IN (${ids.map(() => '?').join(', ')})`, ids)).toEqual([]);
  });

  it('resolves PROFILE and INSTALLATION_ID recipients; an unknown one is a 404', async () => {
    const s = await device(w, { externalId: 'user-ids' });
    const byInstallation = (await (await send(w, sendBody({ type: 'INSTALLATION_ID', value: s.installationId }))).json()) as { diagnostics: { installationId: string }[] };
    expect(byInstallation.diagnostics.map((d) => d.installationId)).toEqual([s.installationId]);
    const profileId = (await w.h.sql.get<{ p: string }>('SELECT profile_id AS p FROM installations WHERE id = ?', [s.installationId]))!.p;
    const byProfile = (await (await send(w, sendBody({ type: 'PROFILE', value: profileId }))).json()) as { diagnostics: { installationId: string }[] };
    expect(byProfile.diagnostics.map((d) => d.installationId)).toEqual([s.installationId]);
    for (const recipient of [{ type: 'EXTERNAL_ID', value: 'nobody' }, { type: 'PROFILE', value: crypto.randomUUID() }, { type: 'INSTALLATION_ID', value: crypto.randomUUID() }])
      expect(await problem(await send(w, sendBody(recipient)))).toMatchObject({ status: 404, body: { code: 'recipient_not_found' } });
  });

  it('replays an admitted request with no second send, and refuses the key with another request (409)', async () => {
    await device(w, { externalId: 'user-idem' });
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-idem' });
    const first = await (await send(w, body)).json();
    const again = await send(w, { ...body, variables: { shippedOn: VARS.shippedOn, amount: VARS.amount, orderId: VARS.orderId } });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual(first);
    expect(await deliveryRows(w, 'send_id = ?', [(first as { requestId: string }).requestId])).toHaveLength(1);
    const conflict = await problem(await send(w, { ...body, variables: { ...VARS, orderId: 'B-2' } }));
    expect(conflict).toEqual({ status: 409, type: 'application/problem+json', body: { code: 'idempotency_key_reused', message: 'idempotencyKey: already used with a different request' } });
  });

  it('admits 50 concurrent identical sends once', async () => {
    await device(w, { externalId: 'user-burst' });
    await device(w, { platform: 'ANDROID', externalId: 'user-burst' });
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-burst' });
    const answers = await Promise.all(Array.from({ length: 50 }, () => send(w, body)));
    expect(answers.map((r) => r.status)).toEqual(new Array(50).fill(202));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ requestId: string }>));
    expect(new Set(bodies.map((b) => b.requestId)).size).toBe(1);
    expect(await deliveryRows(w, 'send_id = ?', [bodies[0].requestId])).toHaveLength(2);
    expect(Number((await w.h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM push_sends WHERE idempotency_key = ?', [body.idempotencyKey]))!.n)).toBe(1);
  });

  it('admits concurrent identical sends through two processes once: the loser of the race replays the winner', async () => {
    await device(w, { externalId: 'user-race' });
    const other = await w.h.otherProcess();
    const body = sendBody({ type: 'EXTERNAL_ID', value: 'user-race' });
    const path = `/api/v1/environments/${w.envId}/transactional/order.shipped/send`;
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      i % 2 ? send(w, body) : other.request(path, json(body, bearer(w.accessKey)))));
    expect(answers.map((r) => r.status)).toEqual(new Array(30).fill(202));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ requestId: string }>));
    expect(new Set(bodies.map((b) => b.requestId)).size).toBe(1);
    expect(await deliveryRows(w, 'send_id = ?', [bodies[0].requestId])).toHaveLength(1);
    expect(Number((await w.h.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM push_sends WHERE idempotency_key = ?', [body.idempotencyKey]))!.n)).toBe(1);
  });

  it('answers 429 with Retry-After past the template’s per-minute limit, and again in the next minute', async () => {
    const m = w.h.services.engage.messaging.templates;
    await m.create({ environment: w.envId, file: templateFile({ key: 'limited', rateLimitPerMinute: 2 }) }, ACTOR);
    await m.publish(w.envId, 'limited', ACTOR);
    await device(w, { externalId: 'user-rate' });
    const go = () => send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-rate' }), { template: 'limited' });
    expect((await go()).status).toBe(202);
    expect((await go()).status).toBe(202);
    const limited = await go();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(((await limited.json()) as { code: string }).code).toBe('rate_limited');
    w.h.clock.advance(Number(limited.headers.get('retry-after')));
    expect((await go()).status).toBe(202);
  });

  it('accepts sends only for an active published version: 404 unknown, 409 draft-only or archived', async () => {
    const m = w.h.services.engage.messaging.templates;
    await device(w, { externalId: 'user-state' });
    const go = (template: string) => send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-state' }), { template });
    expect(await problem(await go('no.such'))).toMatchObject({ status: 404, body: { code: 'template_not_found' } });
    await m.create({ environment: w.envId, file: templateFile({ key: 'draft.only' }) }, ACTOR);
    expect(await problem(await go('draft.only'))).toMatchObject({ status: 409, body: { code: 'template_not_active' } });
    // Editing a published template makes a draft: the published version keeps serving until publish.
    await m.create({ environment: w.envId, file: templateFile({ key: 'edited' }) }, ACTOR);
    await m.publish(w.envId, 'edited', ACTOR);
    await m.update({ environment: w.envId, key: 'edited', file: templateFile({ key: 'edited', localizations: { en: { title: 'New {{orderId}}', body: 'b' } } }) }, ACTOR);
    expect(((await (await go('edited')).json()) as { renderedTitle: string }).renderedTitle).toBe('Order A-17 shipped');
    await m.publish(w.envId, 'edited', ACTOR);
    expect(((await (await go('edited')).json()) as { renderedTitle: string }).renderedTitle).toBe('New A-17');
    await m.archive(w.envId, 'edited', ACTOR);
    expect(await problem(await go('edited'))).toMatchObject({ status: 409, body: { code: 'template_not_active' } });
  });

  it('suppresses the same content to the same installation within the deduplication window', async () => {
    const m = w.h.services.engage.messaging.templates;
    await m.create({ environment: w.envId, file: templateFile({ key: 'dedup', dedupWindowSeconds: 300 }) }, ACTOR);
    await m.publish(w.envId, 'dedup', ACTOR);
    await device(w, { externalId: 'user-dedup' });
    const go = (vars = VARS) => send(w, sendBody({ type: 'EXTERNAL_ID', value: 'user-dedup' }, { variables: vars }), { template: 'dedup' });
    const codes = async (r: Response) => ((await r.json()) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code);
    expect(await codes(await go())).toEqual(['TARGETED']);
    expect(await codes(await go())).toEqual(['SUPPRESSED_DUPLICATE']);
    expect(await codes(await go({ ...VARS, orderId: 'C-3' }))).toEqual(['TARGETED']);
    w.h.clock.advance(301);
    expect(await codes(await go())).toEqual(['TARGETED']);
  });
});
