import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditActor } from '../../platform/audit/audit';
import { createHarness, type Harness } from '../../../test/helpers/harness';
import { templateFile } from '../../../test/fixtures/messaging';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

// What the CLI passes (`os:<user>`); over HTTP the token's subject and client.
const cli: AuditActor = { subject: 'os:alice', clientId: null };

describe('engagement mutations are audited (issue 22 point 4)', () => {
  it('environments, apps, access keys, templates and push credentials: one event each, with its actor, and no secret', async () => {
    const e = h.services.engage.environments;
    const env = await e.create({ name: 'prod' }, cli);
    const ios = await e.createApp({ environment: 'prod', platform: 'IOS', name: 'ios' }, cli);
    await e.disableApp(ios.id, undefined, cli);
    await e.enableApp(ios.id, undefined, cli);
    const key = await e.createAccessKey({ environment: 'prod', apps: ['ios'], name: 'backend' }, cli);
    const rotated = await e.rotateAccessKey(key.id, cli);
    await e.revokeAccessKey(key.id, cli);
    const t = h.services.engage.messaging.templates;
    await t.create({ environment: 'prod', file: templateFile({ apps: [ios.id] }) }, cli);
    await t.update({ environment: 'prod', key: 'order.shipped', file: templateFile({ apps: [ios.id] }) }, cli);
    await t.publish('prod', 'order.shipped', cli);
    await t.archive('prod', 'order.shipped', cli);
    const keyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await h.services.engage.messaging.credentials.setApns({ app: ios.id, keyPem, keyId: 'ABC123DEFG', teamId: 'TEAM123456', topic: 'com.example.shop', sandbox: true }, cli);

    const page = await h.services.admin.auditEvents({ actorSubject: 'os:alice', page: 0, size: 50 });
    const events = page.items.reverse();
    expect(events.map((x) => [x.action, x.targetType, x.tenantId])).toEqual([
      ['environment.created', 'environment', null],
      ['app.created', 'app', null],
      ['app.disabled', 'app', null],
      ['app.enabled', 'app', null],
      ['access_key.created', 'access_key', null],
      ['access_key.rotated', 'access_key', null],
      ['access_key.revoked', 'access_key', null],
      ['template.created', 'template', null],
      ['template.updated', 'template', null],
      ['template.published', 'template', null],
      ['template.archived', 'template', null],
      ['push_credentials.set', 'app', null],
    ]);
    expect(events[0]).toMatchObject({ targetId: env.id, actorClientId: null, details: { name: 'prod' } });
    expect(events[4]).toMatchObject({ targetId: key.id, details: { environmentId: env.id } });
    const trail = JSON.stringify(events);
    for (const secret of [key.key, rotated.key, ios.appKey, keyPem]) expect(trail).not.toContain(secret);
  });

  it('a refused change records nothing', async () => {
    const e = h.services.engage.environments;
    await e.create({ name: 'prod' }, cli);
    await expect(e.create({ name: 'prod' }, cli)).rejects.toThrow();
    expect((await h.services.admin.auditEvents({ actorSubject: 'os:alice', page: 0, size: 50 })).items).toHaveLength(1);
  });
});
