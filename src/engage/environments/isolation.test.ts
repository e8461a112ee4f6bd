import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { bearer, bootstrap, issueCode, json, op, setupEnvironment, transition } from '../../../test/fixtures/engage';
import { ACTOR } from '../../../test/fixtures/actor';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

describe('isolation between environments and apps', () => {
  it('an access key of one environment never reaches another environment’s installations', async () => {
    const a = await setupEnvironment(h, 'alpha');
    const b = await setupEnvironment(h, 'beta');
    const sa = await bootstrap(h, a.app.appKey);
    const code = await issueCode(h, sa);
    const res = await transition(h, b.accessKey, code, { externalId: 'intruder' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe('binding_code_invalid');
    expect(await (await h.request('/v1/sdk/installation', { headers: bearer(sa.credential) })).json()).toMatchObject({ generation: 0, bound: false });
    // The right key still works, and the profile lives in alpha only.
    expect((await transition(h, a.accessKey, code, { externalId: 'u' })).status).toBe(201);
    await expect(h.services.engage.inspection.profile('beta', 'u')).rejects.toThrow(/not found/);
  });

  it('an access key restricted to one app cannot bind another app’s installation (401)', async () => {
    const env = await setupEnvironment(h, 'prod');
    const android = await h.services.engage.environments.createApp({ environment: 'prod', platform: 'ANDROID', name: 'droid' }, ACTOR);
    const s = await bootstrap(h, android.appKey, { platform: 'ANDROID' });
    const res = await transition(h, env.accessKey, await issueCode(h, s), null);
    expect(res.status).toBe(401);
    const both = await h.services.engage.environments.createAccessKey({ environment: 'prod', apps: ['prod-ios', 'droid'] }, ACTOR);
    expect((await transition(h, both.key, await issueCode(h, s), null)).status).toBe(201);
  });

  it('a recovery token of one app does not recover through another app', async () => {
    const a = await setupEnvironment(h, 'alpha');
    const b = await setupEnvironment(h, 'beta');
    const sa = await bootstrap(h, a.app.appKey);
    const res = await h.request(
      '/v1/sdk/installations',
      json({ platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1', recoveryToken: sa.recoveryToken }, { 'X-Service-App-Key': b.app.appKey }),
    );
    expect(res.status).toBe(201);
    expect(((await res.json()) as { installationId: string }).installationId).not.toBe(sa.installationId);
    expect((await h.request('/v1/sdk/installation', { headers: bearer(sa.credential) })).status).toBe(200);
  });

  it('installation credentials address only their own installation', async () => {
    const a = await setupEnvironment(h, 'alpha');
    const s1 = await bootstrap(h, a.app.appKey);
    const s2 = await bootstrap(h, a.app.appKey);
    const batch = { batchId: randomUUID(), operations: [op('INSTALLATION_ATTRIBUTES_EDITED', { set: { who: 1 } })] };
    expect((await h.request('/v1/sdk/operations:batch', json(batch, bearer(s1.credential)))).status).toBe(202);
    // Same batchId from another installation is a different batch.
    expect((await h.request('/v1/sdk/operations:batch', json(batch, bearer(s2.credential)))).status).toBe(202);
    expect((await h.services.engage.inspection.installation(s1.installationId)).attributes).toEqual({ who: 1 });
    expect((await h.services.engage.inspection.installation(s2.installationId)).attributes).toEqual({ who: 1 });
    expect((await h.services.engage.inspection.installation(s2.installationId)).operations).toEqual([{ type: 'INSTALLATION_ATTRIBUTES_EDITED', status: 'ACCEPTED', n: 1 }]);
  });
});
