import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type RunningServer, type Sandbox } from '../helpers/binary';

/**
 * Issue 24 points 5 and 6 against the built executable: the CLI's side of inspection, erasure
 * and audit (the same services as the administration API): installations list (keyset pages),
 * installations erase and profiles erase (a repeat is unknown_*, exit 1), audit list
 * --environment. Installations bootstrap through the mobile edge of the running server.
 */
let sandbox: Sandbox;
let server: RunningServer;
const ids: string[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ prefix: 'engage-inspection-cli-' });
  await sandbox.cli(['environments', 'create', '--name', 'prod']);
  await sandbox.cli(['environments', 'create', '--name', 'staging']);
  const { appKey } = await sandbox.cliJson<{ appKey: string }>(['apps', 'create', '--environment', 'prod', '--platform', 'IOS', '--name', 'ios']);
  server = await sandbox.serve();
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${server.url}/v1/sdk/installations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-App-Key': appKey },
      body: JSON.stringify({ platform: 'IOS', locale: 'en', timezone: 'UTC', sdkVersion: '1', appVersion: '1' }),
    });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { installationId: string }).installationId);
  }
  ids.sort();
}, 60_000);
afterAll(async () => {
  await sandbox?.cleanup();
});

type Page = { items: { id: string; pushTokenHeld: boolean }[]; size: number; hasMore: boolean; next: string | null };

describe('inspection, erasure and audit from the CLI', () => {
  it('installations list pages by --after, in id order, never a token', async () => {
    const first = await sandbox.cliJson<Page>(['installations', 'list', '--environment', 'prod', '--size', '2']);
    expect(first).toMatchObject({ size: 2, hasMore: true, next: ids[1] });
    expect(first.items.map((i) => [i.id, i.pushTokenHeld])).toEqual([[ids[0], false], [ids[1], false]]);
    const second = await sandbox.cliJson<Page>(['installations', 'list', '--environment', 'prod', '--size', '2', '--after', first.next!]);
    expect(second).toMatchObject({ hasMore: false, next: null });
    expect(second.items.map((i) => i.id)).toEqual([ids[2]]);
    expect((await sandbox.cliJson<Page>(['installations', 'list', '--environment', 'staging'])).items).toEqual([]);
    const text = await sandbox.cli(['installations', 'list', '--environment', 'prod', '--size', '1']);
    expect(text).toMatch(/^id\s+appId\s+platform/);
    const bad = await sandbox.run(['installations', 'list', '--environment', 'prod', '--size', '0']);
    expect(bad.code).toBe(1);
  });

  it('installations erase: committed, then unknown_installation; in another environment unknown_installation', async () => {
    const wrongEnv = await sandbox.run(['installations', 'erase', ids[0], '--environment', 'staging']);
    expect([wrongEnv.code, wrongEnv.stderr.trim()]).toEqual([1, 'engage: unknown_installation: no such installation in this environment']);
    expect(await sandbox.cliJson(['installations', 'erase', ids[0], '--environment', 'prod'])).toMatchObject({ erased: 'installation', id: ids[0] });
    const again = await sandbox.run(['installations', 'erase', ids[0], '--environment', 'prod']);
    expect([again.code, again.stderr.trim()]).toEqual([1, 'engage: unknown_installation: no such installation in this environment']);
    expect((await sandbox.cliJson<Page>(['installations', 'list', '--environment', 'prod'])).items.map((i) => i.id)).toEqual([ids[1], ids[2]]);
  });

  it('profiles show and erase by --id: the profile and its installation go; a repeat is unknown_profile', async () => {
    const { profileId } = await sandbox.cliJson<{ profileId: string }>(['installations', 'show', ids[1], '--environment', 'prod']);
    expect(await sandbox.cliJson(['profiles', 'show', '--environment', 'prod', '--id', profileId])).toMatchObject({ id: profileId, externalId: null, installations: [{ id: ids[1] }] });
    expect(await sandbox.cliJson(['profiles', 'erase', '--environment', 'prod', '--id', profileId])).toMatchObject({ erased: 'profile', installations: 1 });
    const again = await sandbox.run(['profiles', 'erase', '--environment', 'prod', '--id', profileId]);
    expect([again.code, again.stderr.trim()]).toEqual([1, 'engage: unknown_profile: no such profile in this environment']);
    const neither = await sandbox.run(['profiles', 'erase', '--environment', 'prod']);
    expect(neither.code).toBe(1);
  });

  it('audit list --environment: the erasures with the OS user as actor, only that environment', async () => {
    const page = await sandbox.cliJson<{ items: { action: string; environmentId: string; actorSubject: string }[] }>(['audit', 'list', '--environment', 'prod', '--size', '200']);
    const env = await sandbox.cliJson<{ id: string }>(['environments', 'show', 'prod']);
    expect(new Set(page.items.map((e) => e.environmentId))).toEqual(new Set([env.id]));
    expect(page.items.filter((e) => e.action.endsWith('.erased')).map((e) => e.action)).toEqual(['profile.erased', 'installation.erased']);
    expect(page.items[0].actorSubject).toMatch(/^os:/);
    const staging = await sandbox.cliJson<{ items: { action: string }[] }>(['audit', 'list', '--environment', 'staging']);
    expect(staging.items.map((e) => e.action)).toEqual(['environment.created']);
    const unknown = await sandbox.run(['audit', 'list', '--environment', 'nowhere']);
    expect(unknown.code).toBe(1);
  });
});
