import { CHANNEL } from './store/version-channels';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarnessPair, TEST_ENGINE, type Harness } from '../../test/helpers/harness';
import { CatalogCache } from './catalog';
import { SYSTEM_ACTOR } from '../identity/audit';

const API = 'https://api.example.com';
const nextTurn = () => new Promise((r) => setImmediate(r));

let h: Harness;
/** Another process on the same database, as the CLI is. */
let other: Awaited<ReturnType<Harness['otherProcess']>>;

beforeEach(async () => {
  ({ h, other } = await createHarnessPair());
});
afterEach(() => h.close());

describe('the catalog version channel', () => {
  const version = () => h.services.store.version(CHANNEL.catalog);

  it('moves on every insert, update and delete of each catalogue table', async () => {
    const steps: [string, () => unknown][] = [
      ['tenant insert', () => h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR)],
      ['resource insert', async () => h.services.resources.create((await h.services.tenants.get('acme')).id, { uri: API, audience: 'urn:api', scopes: ['api.read'] }, SYSTEM_ACTOR)],
      ['credential insert', async () => h.services.credentials.issue((await h.services.tenants.get('acme')).id, API, SYSTEM_ACTOR)],
      [
        'client insert',
        async () =>
          h.services.clients.create((await h.services.tenants.get('acme')).id, {
            clientId: 'app', displayName: 'App', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
            redirectUris: ['https://app.example.com/cb'], scopes: ['openid'],
          }, SYSTEM_ACTOR),
      ],
      ['tenant update', () => h.sql.run(`UPDATE tenants SET updated_at = 'later' WHERE slug = 'acme'`)],
      ['key update', () => h.sql.run(`UPDATE signing_keys SET created_at = created_at || ' ' WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'acme')`)],
      ['client update', () => h.sql.run(`UPDATE clients SET status = 'DISABLED'`)],
      ['resource update', () => h.sql.run(`UPDATE resources SET status = 'DISABLED'`)],
      ['credential update', () => h.sql.run(`UPDATE resource_credentials SET status = 'REVOKED'`)],
      ['credential delete', () => h.sql.run(`DELETE FROM resource_credentials`)],
      ['client delete', () => h.sql.run(`DELETE FROM clients`)],
      ['resource delete', () => h.sql.run(`DELETE FROM resources`)],
      ['key delete', () => h.sql.run(`DELETE FROM signing_keys WHERE tenant_id = (SELECT id FROM tenants WHERE slug = 'acme')`)],
      ['tenant delete', () => h.sql.run(`DELETE FROM tenants WHERE slug = 'acme'`)],
    ];
    for (const [what, step] of steps) {
      const before = version();
      await h.changedElsewhere(async () => step());
      expect(version(), what).toBeGreaterThan(before);
    }
  });

  it('stands still when nothing in the catalogue changes', async () => {
    const t = await h.services.tenants.create({ slug: 'quiet' }, SYSTEM_ACTOR);
    const before = version();
    await h.services.users.create(t.id, { email: 'ada@example.com', emailVerified: true, password: 'correct horse battery' }, SYSTEM_ACTOR);
    expect(version()).toBe(before);
  });
});

describe('CatalogCache', () => {
  it('keeps found rows while the version stands, drops them all when it moves, never keeps a miss', async () => {
    let version = 1;
    let loads = 0;
    const cache = new CatalogCache<string>(() => version);
    const load = (v: string | undefined) => async () => (loads++, v);
    expect(await cache.get('a', load('A1'))).toBe('A1');
    expect(await cache.get('a', load('A2'))).toBe('A1');
    expect(cache.peek('a')).toBe('A1');
    expect(await cache.get('missing', load(undefined))).toBeUndefined();
    expect(await cache.get('missing', load('M'))).toBe('M');
    expect(loads).toBe(3);
    version = 2;
    expect(cache.peek('a')).toBeUndefined();
    expect(await cache.get('a', load('A3'))).toBe('A3');
    expect(loads).toBe(4);
  });

  it('does not keep a row loaded while the version moved', async () => {
    let version = 1;
    const cache = new CatalogCache<string>(() => version);
    expect(await cache.get('a', async () => ((version = 2), 'loaded under version 1'))).toBe('loaded under version 1');
    expect(await cache.get('a', async () => 'fresh')).toBe('fresh');
  });

  it('holds at most max rows, dropping the oldest', async () => {
    const cache = new CatalogCache<string>(() => 1, 2);
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    await cache.get('c', async () => 'C');
    expect(await cache.get('a', async () => 'A again')).toBe('A again');
    expect(await cache.get('c', async () => 'C again')).toBe('C');
  });
});

describe('a change by another process is seen by the next request', () => {
  // Each case looks once (cached), changes the row from the other process, and looks again once
  // the change can be seen: the next event-loop turn on SQLite, the notification on PostgreSQL
  // (h.changedElsewhere). On SQLite it also looks again in the same turn: reads of one turn share
  // a snapshot, so the answer is still the first one.
  async function seenNextTurn<T>(look: () => T | Promise<T>, change: () => Promise<unknown>): Promise<[T, T, T]> {
    h.services.store.shareReadsThisTurn();
    const first = await look();
    let sameTurn = first;
    await h.changedElsewhere(async () => {
      await change();
      if (TEST_ENGINE === 'sqlite') sameTurn = await look();
    });
    h.services.store.shareReadsThisTurn();
    const next = await look();
    await nextTurn();
    return [first, sameTurn, next];
  }

  it('a disabled tenant stops resolving', async () => {
    await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const [first, sameTurn, next] = await seenNextTurn(
      async () => (await h.services.tenants.resolveByPath('acme'))?.tenant.slug,
      () => other.tenants.setStatus('acme', 'DISABLED', SYSTEM_ACTOR),
    );
    expect([first, sameTurn, next]).toEqual(['acme', 'acme', undefined]);
  });

  it('a revoked resource-server credential stops authenticating', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    await h.services.resources.create(t.id, { uri: API, audience: 'urn:api', scopes: ['api.read'] }, SYSTEM_ACTOR);
    const cred = await h.services.credentials.issue(t.id, API, SYSTEM_ACTOR);
    const [first, , next] = await seenNextTurn(
      async () => (await h.services.credentials.authenticate(t.id, cred.credentialId, cred.credentialSecret))?.audience,
      () => other.credentials.revoke(t.id, cred.credentialId, SYSTEM_ACTOR),
    );
    expect(first).toBe('urn:api');
    expect(next).toBeUndefined();
    expect(await h.services.credentials.authenticate(t.id, cred.credentialId, 'wrong secret')).toBeUndefined();
  });

  it('a revoked signing key stops verifying, and a rotation changes the signing key', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    const kid = (await h.services.keys.signingKey(t.id))!.kid;
    await h.services.keys.rotate(t.id, SYSTEM_ACTOR, { now: true });
    const rotated = (await h.services.keys.signingKey(t.id))!.kid;
    expect(rotated).not.toBe(kid);
    const [first, , next] = await seenNextTurn(
      async () => (await h.services.keys.verificationKey(t.id, kid)) !== undefined,
      () => other.keys.revoke(t.id, kid, SYSTEM_ACTOR),
    );
    expect([first, next]).toEqual([true, false]);
  });

  it('a disabled client is seen disabled', async () => {
    const t = await h.services.tenants.create({ slug: 'acme' }, SYSTEM_ACTOR);
    await h.services.clients.create(t.id, {
      clientId: 'app', displayName: 'App', applicationType: 'NATIVE', tokenEndpointAuthMethod: 'NONE', consentPolicy: 'PRE_AUTHORIZED',
      redirectUris: ['https://app.example.com/cb'], scopes: ['openid'],
    }, SYSTEM_ACTOR);
    const [first, , next] = await seenNextTurn(
      async () => (await h.services.clients.find(t.id, 'app'))?.status,
      () => h.sql.run(`UPDATE clients SET status = 'DISABLED' WHERE client_id = 'app'`),
    );
    expect([first, next]).toEqual(['ACTIVE', 'DISABLED']);
  });
});
