import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../helpers/binary';
import { createPushSandbox, iosAppWithTemplate, registerDevices, until, type PushSandbox } from '../helpers/push-e2e';

/**
 * Issue 24 point 4 against the built executable: the CLI's side of templates, previews, test
 * groups and test sends (the services the administration API calls). A test send from the CLI
 * is delivered by the serving process to the loopback APNs and shows as a test in `sends show`.
 */
const TOPIC = 'com.example.tests';
let p: PushSandbox;
let server: RunningServer;
let env: { id: string };
let devices: string[];

beforeAll(async () => {
  p = await createPushSandbox({ prefix: 'engage-test-sends-', topic: TOPIC });
  const made = await iosAppWithTemplate(p, {
    environment: 'qa',
    topic: TOPIC,
    template: { key: 'hello', variables: { name: { type: 'string' } }, localizations: { en: { title: 'Hello {{name}}', body: 'Welcome' } } },
  });
  env = made.environment;
  server = await p.sandbox.serve({ env: p.env });
  devices = await registerDevices(server, made.app.appKey, 2);
}, 120_000);
afterAll(() => p?.close());

describe('templates, test groups and test sends from the CLI', () => {
  it('a draft previewed, sent to a test group, delivered, and shown as a test outside the counts', async () => {
    const cli = p.cli;
    const file = path.join(p.sandbox.dir, 'hello-v2.json');
    writeFileSync(file, JSON.stringify({ key: 'hello', apps: ['ios'], defaultLocale: 'en', variables: { name: { type: 'string' } }, localizations: { en: { title: 'Hi {{name}}', body: 'Draft' } } }));
    await cli(['templates', 'update', 'hello', '--environment', 'qa', '--file', file]);
    expect(await cli<{ version: number; state: string }[]>(['templates', 'versions', 'hello', '--environment', 'qa'])).toMatchObject([{ version: 1, state: 'PUBLISHED' }, { version: 2, state: 'DRAFT' }]);
    expect(await cli(['templates', 'versions', 'hello', '--environment', 'qa', '--template-version', 'draft'])).toMatchObject({ version: 2, definition: { localizations: { en: { title: 'Hi {{name}}' } } } });
    const preview = await cli<{ title: string; targets: { provider: string; payload: { aps: { alert: { title: string } } } }[] }>(
      ['templates', 'preview', 'hello', '--environment', 'qa', '--template-version', 'draft', '--variables', '{"name":"Ada"}']);
    expect(preview).toMatchObject({ title: 'Hi Ada', targets: [{ provider: 'APNS', payload: { aps: { alert: { title: 'Hi Ada' } } } }] });
    // An unsaved file, rendered and stored nowhere (the twin of the console's live preview).
    const unsavedFile = path.join(p.sandbox.dir, 'hello-unsaved.json');
    writeFileSync(unsavedFile, JSON.stringify({ apps: ['ios'], defaultLocale: 'en', variables: { name: { type: 'string' } }, localizations: { en: { title: 'Unsaved {{name}}', body: 'Draft' } } }));
    expect(await cli(['templates', 'preview', 'hello', '--environment', 'qa', '--file', unsavedFile, '--variables', '{"name":"Ada"}'])).toMatchObject({ version: null, state: 'UNSAVED', title: 'Unsaved Ada' });
    const both = await p.sandbox.run(['templates', 'preview', 'hello', '--environment', 'qa', '--file', unsavedFile, '--template-version', 'draft'], { env: p.env });
    expect([both.code, both.stderr]).toEqual([1, expect.stringContaining('give version or file, not both')]);
    const bad = await p.sandbox.run(['templates', 'preview', 'hello', '--environment', 'qa', '--variables', '{}'], { env: p.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('variables.name: is required');

    const group = await cli<{ id: string; memberCount: number }>(['test-groups', 'create', '--environment', 'qa', '--name', 'team', '--installation', devices[0], '--external-id', 'nobody']);
    expect(group).toMatchObject({ memberCount: 2 });
    const renamed = await cli(['test-groups', 'update', 'team', '--environment', 'qa', '--name', 'devices', '--clear', '--installation', devices[0], '--installation', devices[1], '--external-id', 'nobody']);
    expect(renamed).toMatchObject({ id: group.id, name: 'devices', memberCount: 3 });
    expect((await cli<{ name: string }[]>(['test-groups', 'list', '--environment', 'qa'])).map((g) => g.name)).toEqual(['devices']);
    expect(await cli(['test-groups', 'show', 'devices', '--environment', 'qa'])).toMatchObject({ members: [{ installationId: devices[0] }, { installationId: devices[1] }, { externalId: 'nobody' }] });

    const sent = await cli<{ requestId: string; isTest: boolean; accepted: boolean; unresolvedMembers: number; renderedTitle: string; diagnostics: { deliveryId: string }[] }>(
      ['sends', 'test', '--environment', 'qa', '--template', 'hello', '--test-group', 'devices', '--template-version', 'draft', '--variables', '{"name":"Ada"}']);
    expect(sent).toMatchObject({ isTest: true, accepted: true, unresolvedMembers: 1, renderedTitle: 'Hi Ada' });
    const ids = sent.diagnostics.map((d) => d.deliveryId);
    await until('both test deliveries at APNs', () => ids.every((id) => p.apns.requests.some((r) => r.apnsId === id)), 60_000);
    expect(p.apns.requests.filter((r) => ids.includes(r.apnsId)).map((r) => (r.payload as { aps: { alert: { title: string } } }).aps.alert.title)).toEqual(['Hi Ada', 'Hi Ada']);
    const shown = await cli<{ isTest: boolean; accessKeyId: string; recipient: { type: string; value: string } }>(['sends', 'show', sent.requestId]);
    expect(shown).toMatchObject({ isTest: true, recipient: { type: 'TEST_GROUP', value: group.id } });
    expect(shown.accessKeyId).toMatch(/^operator:os:/);
    expect(await cli(['templates', 'show', 'hello', '--environment', 'qa'])).toMatchObject({ sends: 0, testSends: 1 });

    await cli(['test-groups', 'delete', 'devices', '--environment', 'qa']);
    const gone = await p.sandbox.run(['test-groups', 'show', 'devices', '--environment', 'qa'], { env: p.env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('test group devices not found');
    void env;
  }, 120_000);
});
